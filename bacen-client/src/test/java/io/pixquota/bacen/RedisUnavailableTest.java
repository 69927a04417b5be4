package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.PrivateRedisServer;
import io.pixquota.testing.TestRedis;
import java.io.IOException;
import java.time.Duration;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/** The policy for an unreachable bucket, with a private redis-server that the test kills and restarts. */
class RedisUnavailableTest {
  private final MockWebServer server = new MockWebServer();
  private PrivateRedisServer redis;
  private RedissonClient redisson;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void start() throws IOException {
    server.setDispatcher(ArrivalRecorder.ok());
    server.start();
    redis = PrivateRedisServer.start();
    redisson = Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
  }

  @AfterEach
  void stop() {
    redisson.shutdown();
    redis.close();
    server.close();
  }

  private RedisTokenBucket bucket() {
    return RedisTokenBucket.create(redisson, TokenBucketConfig.custom("pix").limit(10, 10)
        .redisTimeout(Duration.ofMillis(300)).build());
  }

  private int get(OkHttpClient client) throws IOException {
    try (Response r = client.newCall(new Request.Builder().url(server.url("/pix")).build()).execute()) {
      return r.code();
    }
  }

  private int untilRedisAnswers(OkHttpClient client) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (true) {
      try {
        return get(client);
      } catch (ThrottleUnavailableException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  @Test
  void failClosedSendsNothingAndRecoversByItself() throws Exception {
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(ThrottlingInterceptor.builder(bucket()).meterRegistry(registry).build()).build();
    assertThat(get(client)).isEqualTo(200);
    redis.kill();
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> get(client)).isInstanceOfSatisfying(ThrottleUnavailableException.class,
          e -> assertThat(e.bucket()).isEqualTo("pix"));
    }
    assertThat(server.getRequestCount()).as("no call made while the bucket is away").isEqualTo(1);
    assertThat(registry.get("bacen.throttle.redis.errors").counter().count()).isEqualTo(5);
    redis.restart();
    assertThat(untilRedisAnswers(client)).isEqualTo(200);
  }

  @Test
  void localFallbackUsesTheLocalShareNeverMoreAndReturnsToRedis() throws Exception {
    java.io.PrintStream originalErr = System.err;
    java.io.ByteArrayOutputStream logs = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(logs, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      localFallback();
    } finally {
      System.setErr(originalErr);
    }
    String log = logs.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(log.split("Redis unavailable", -1)).as("one WARN when falling back:%n%s", log).hasSize(2);
    assertThat(log.split("Redis answers again", -1)).as("one WARN when back:%n%s", log).hasSize(2);
  }

  private void localFallback() throws Exception {
    OkHttpClient client = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.builder(bucket())
        .maxWait(Duration.ZERO).redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 0.5, Duration.ofMillis(200))
        .meterRegistry(registry).build()).build();
    assertThat(get(client)).isEqualTo(200);
    redis.kill();
    int served = 0;
    int refused = 0;
    for (int i = 0; i < 20; i++) {
      try {
        served += get(client) == 200 ? 1 : 0;
      } catch (ThrottleRefusedException e) {
        refused++;
      }
    }
    // share 0.5 of (10, 10/s): burst 5, and the loop takes well under 100 ms, so at most one more token refills
    assertThat(served).isBetween(5, 6);
    assertThat(refused).isEqualTo(20 - served);
    assertThat(registry.get("bacen.throttle.fallback.active").gauge().value()).isEqualTo(1.0);
    redis.restart();
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (registry.get("bacen.throttle.fallback.active").gauge().value() == 1.0 && System.nanoTime() < deadline) {
      Thread.sleep(250);
      try {
        get(client);
      } catch (ThrottleRefusedException ignored) {
        // the local share may be empty; what matters is that Redis is asked again
      }
    }
    assertThat(registry.get("bacen.throttle.fallback.active").gauge().value()).as("back on Redis").isZero();
  }
}
