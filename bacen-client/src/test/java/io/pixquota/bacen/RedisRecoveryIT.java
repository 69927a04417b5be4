package io.pixquota.bacen;

import io.pixquota.throttle.redis.RedissonStore;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.StdErrCapture;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.okhttp.ArrivalRecorder;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
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
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Real time, real process: a private redis-server killed and restarted under a live interceptor. How long Redisson
 * takes to reconnect is its own business, so these tests wait for the outcome (up to 15 s), not for a time.
 */
class RedisRecoveryIT {
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
    return RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.custom("pix").limit(10, 10)
        .redisTimeout(Duration.ofMillis(300)).build());
  }

  private Integer get(OkHttpClient client) {
    try (Response r = client.newCall(new Request.Builder().url(server.url("/pix")).build()).execute()) {
      return r.code();
    } catch (IOException notYet) {
      return null;
    }
  }

  /** Calls until one is served, at most 15 s; 100 ms apart so that a failing Redisson is not hammered. */
  private boolean servedWithin15s(OkHttpClient client) throws InterruptedException {
    try {
      Awaits.until("served by the shared bucket again", Duration.ofSeconds(15), Duration.ofMillis(100),
          () -> Integer.valueOf(200)
          .equals(get(client)) && registry.get("bacen.throttle.fallback.active").gauge().value() == 0);
      return true;
    } catch (AssertionError notYet) {
      return false;
    }
  }

  @Test
  void failClosedRecoversByItselfWhenRedisComesBack() throws Exception {
    OkHttpClient client = new OkHttpClient.Builder()
        .addInterceptor(ThrottlingInterceptor.of(Throttle.builder(bucket()).meterRegistry(registry).build())).build();
    assertThat(get(client)).isEqualTo(200);
    redis.kill();
    assertThat(get(client)).as("down: not sent").isNull();
    redis.restart();
    assertThat(servedWithin15s(client)).isTrue();
  }

  @Test
  void localFallbackReturnsToTheSharedBucketWithOneWarnEachWay() throws Exception {
    try (StdErrCapture logs = new StdErrCapture()) {
      OkHttpClient client = new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(Throttle
          .builder(bucket())
          .maxWait(Duration.ZERO).redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 0.5,
              Duration.ofMillis(200)).meterRegistry(registry).build())).build();
      assertThat(get(client)).isEqualTo(200);
      redis.kill();
      for (int i = 0; i < 10; i++) {
        get(client);
      }
      assertThat(registry.get("bacen.throttle.fallback.active").gauge().value()).isEqualTo(1.0);
      redis.restart();
      assertThat(servedWithin15s(client)).as("back on Redis").isTrue();
      assertThat(logs.count("Redis unavailable")).as("one WARN when falling back:%n%s", logs.text()).isEqualTo(1);
      assertThat(logs.count("Redis answers again")).as("one WARN when back:%n%s", logs.text()).isEqualTo(1);
    }
  }
}
