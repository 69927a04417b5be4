package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.harness.FreePorts;
import io.pixquota.throttle.BucketUnavailableException;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.StdErrCapture;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.okhttp.ArrivalRecorder;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import java.time.Duration;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The policy for an unreachable bucket (nothing listens on its Redis port), on a fake clock: FAIL_CLOSED sends
 * nothing; LOCAL_FALLBACK uses exactly its local share, never more, and asks Redis again on schedule. Recovery when
 * Redis comes back is {@link RedisRecoveryIT}'s.
 */
class RedisUnavailableTest {
  private final MockWebServer server = new MockWebServer();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private RedissonClient redisson;

  @BeforeEach
  void start() throws IOException {
    server.setDispatcher(ArrivalRecorder.ok());
    server.start();
    redisson = RedisAddress.parse("redis://127.0.0.1:" + FreePorts.pick()).connect(Duration.ofMillis(300));
  }

  @AfterEach
  void stop() {
    redisson.shutdown();
    server.close();
  }

  private RedisTokenBucket bucket() {
    return RedisTesting.create(redisson, TokenBucketConfig.custom("pix").limit(10, 10).clientClock(time.clock())
        .redisTimeout(Duration.ofMillis(300)).build(), time);
  }

  private int get(OkHttpClient client) throws IOException {
    try (Response r = client.newCall(new Request.Builder().url(server.url("/pix")).build()).execute()) {
      return r.code();
    }
  }

  private double gauge(String name) {
    return registry.get(name).gauge().value();
  }

  private double count(String name) {
    return registry.get(name).counter().count();
  }

  @Test
  void failClosedSendsNothingAndSaysWhichBucketAndWhy() {
    OkHttpClient client = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(ThrottleTesting
        .builder(bucket(), time)
        .meterRegistry(registry).build())).build();
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> get(client)).isInstanceOfSatisfying(BucketUnavailableException.class, e -> {
        assertThat(e.bucket()).isEqualTo("pix");
        assertThat(e).hasMessageStartingWith("Bucket 'pix' is unavailable: Redis call failed: ");
      });
    }
    assertThat(server.getRequestCount()).as("no call made while the bucket is away").isZero();
    assertThat(count("bacen.throttle.redis.errors"))
        .as("each call asked again, holding nothing, while its 10 s max wait left time: at 0, 0.1, 0.3, 0.7, 1.5, "
            + "2.5 ... 9.5 s, then failed as the bucket unavailable").isEqualTo(5 * 13);
    assertThat(gauge("bacen.throttle.fallback.active")).isZero();
  }

  @Test
  void localFallbackUsesExactlyTheLocalShareAndAsksRedisAgainOnSchedule() throws Exception {
    try (StdErrCapture logs = new StdErrCapture()) {
      OkHttpClient client = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(ThrottleTesting
          .builder(bucket(), time)
          .maxWait(Duration.ZERO).redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 0.5,
              Duration.ofMillis(200)).meterRegistry(registry).build())).build();
      // share 0.5 of (10, 10/s): burst 5, refilled at 5/s, and the fake clock does not move between calls
      assertThat(served(client, 20)).isEqualTo(5);
      assertThat(gauge("bacen.throttle.fallback.active")).isEqualTo(1.0);
      assertThat(count("bacen.throttle.redis.errors")).as("Redis asked once, then not for 200 ms").isEqualTo(1);
      time.advanceMillis(200); // + 1 token, and time to ask Redis again
      assertThat(served(client, 20)).isEqualTo(1);
      assertThat(count("bacen.throttle.redis.errors")).isEqualTo(2);
      assertThat(server.getRequestCount()).isEqualTo(6);
      assertThat(logs.count("Redis unavailable")).as("one WARN when falling back:%n%s", logs.text()).isEqualTo(1);
    }
  }

  @Test
  void aPlansLocalShareCapsTheConfiguredOne() throws Exception {
    // configured 1.0 (the whole quota), but the plan is for 4 replicas: 1/4 of (10, 10/s) = burst 2.5
    QuotaPlan planForFour = new QuotaPlan(10, 10, Duration.ofMillis(100), Duration.ofMillis(50), 0.99, 0.25,
        "test: 4 replicas");
    OkHttpClient client = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(ThrottleTesting
        .builder(bucket(), time)
        .maxWait(Duration.ZERO).plan(planForFour).redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 1,
            Duration.ofHours(1)).meterRegistry(registry).build())).build();
    assertThat(served(client, 20)).isEqualTo(2);
  }

  @Test
  void aLocalShareBelowOneTokenStillLetsOneCallThrough() throws Exception {
    // 0.01 of (10, 10/s) would be a burst of 0.1: no call could ever pass; the floor is 1 token, refilled at 0.1/s
    OkHttpClient client = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(ThrottleTesting
        .builder(bucket(), time)
        .maxWait(Duration.ZERO).redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 0.01, Duration.ofHours(1))
        .meterRegistry(registry).build())).build();
    assertThat(served(client, 20)).isEqualTo(1);
    time.advanceMillis(5_000); // + 0.5 token
    assertThat(served(client, 20)).isZero();
    time.advanceMillis(5_000); // + 0.5 token: 1
    assertThat(served(client, 20)).isEqualTo(1);
  }

  private int served(OkHttpClient client, int calls) throws IOException {
    int served = 0;
    for (int i = 0; i < calls; i++) {
      try {
        served += get(client) == 200 ? 1 : 0;
      } catch (ThrottleRefusedException refused) {
        // the local share is empty: refused, typed, nothing sent
      }
    }
    return served;
  }
}
