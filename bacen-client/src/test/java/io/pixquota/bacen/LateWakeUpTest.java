package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.io.IOException;
import java.time.Duration;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A caller whose thread is slow to run after Redis answered (a starved CPU, a GC pause) must not leave "on time" by
 * its own clock: it is late, it books a fresh slot, and past the plan's J it is counted and logged.
 */
@ExtendWith(RedisExtension.class)
class LateWakeUpTest {

  /** A bucket whose caller only gets to run 30 ms after the answer arrived. */
  private record SlowToWake(TokenBucket delegate) implements TokenBucket {
    @Override
    public String name() {
      return delegate.name();
    }

    @Override
    public Acquisition acquire(double cost, Duration maxWait) throws InterruptedException {
      Acquisition a = delegate.acquire(cost, maxWait);
      Thread.sleep(30);
      return a;
    }

    @Override
    public double charge(double cost) throws InterruptedException {
      return delegate.charge(cost);
    }

    @Override
    public double refund(double cost) throws InterruptedException {
      return delegate.refund(cost);
    }
  }

  @Test
  void aLateCallerRebooksAndPastThePlansJitterIsCounted(TestRedis redis) throws Exception {
    RedisTokenBucket shared = RedisTokenBucket.create(redis.newRedisson(), TokenBucketConfig.custom("late")
        .keyPrefix(redis.keyPrefix()).limit(100, 0.01).build());
    QuotaPlan plan = new QuotaPlan(100, 100, Duration.ofMillis(10), Duration.ofMillis(5), 1, 1, "test plan");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(ArrivalRecorder.ok());
      server.start();
      OkHttpClient client = new OkHttpClient.Builder().addNetworkInterceptor(ThrottlingInterceptor
          .builder(new SlowToWake(shared)).plan(plan).meterRegistry(registry).build()).build();
      try (Response r = client.newCall(new Request.Builder().url(server.url("/x")).build()).execute()) {
        assertThat(r.code()).isEqualTo(200);
      }
      assertThat(server.getRequestCount()).isEqualTo(1);
    }
    assertThat(registry.get("bacen.throttle.rebooked").counter().count())
        .as("30 ms late > 5 ms late limit: a fresh slot each time, %d times at most", ThrottlingInterceptor.MAX_REBOOKS)
        .isEqualTo(ThrottlingInterceptor.MAX_REBOOKS);
    assertThat(registry.get("bacen.throttle.margin.exceeded").counter().count()).as("30 ms > J = 10 ms").isEqualTo(1);
    assertThat(registry.get("bacen.throttle.lateness").timer().max(java.util.concurrent.TimeUnit.MILLISECONDS))
        .isGreaterThanOrEqualTo(30);
    // the missed slots were not given back: 1 call cost 1 + 3 tokens
    assertThat(shared.acquire(1, Duration.ZERO).remaining()).as("1 call cost 1 + 3 missed slots, then 1 more")
        .isBetween(95.0, 95.1);
  }

  @Test
  void anOnTimeCallerNeitherRebooksNorExceedsTheMargin(TestRedis redis) throws IOException, InterruptedException {
    RedisTokenBucket shared = RedisTokenBucket.create(redis.newRedisson(), TokenBucketConfig.custom("ontime")
        .keyPrefix(redis.keyPrefix()).limit(2, 20).build());
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(ArrivalRecorder.ok());
      server.start();
      OkHttpClient client = new OkHttpClient.Builder().addNetworkInterceptor(ThrottlingInterceptor.builder(shared)
          .plan(QuotaPlanner.plan(ProviderPolicy.tokenBucket(3, 21, Duration.ofSeconds(1)), Duration.ofMillis(40)))
          .meterRegistry(registry).build()).build();
      for (int i = 0; i < 6; i++) {
        try (Response r = client.newCall(new Request.Builder().url(server.url("/x")).build()).execute()) {
          assertThat(r.code()).isEqualTo(200);
        }
      }
    }
    assertThat(registry.get("bacen.throttle.margin.exceeded").counter().count()).isZero();
    assertThat(registry.get("bacen.throttle.permits").tag("result", "granted").counter().count()).isEqualTo(6);
  }
}
