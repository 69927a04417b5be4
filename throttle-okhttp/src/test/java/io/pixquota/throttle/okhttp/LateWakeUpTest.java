package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.BucketStatus;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.ForwardingBucket;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A caller whose thread is slow to run after Redis answered (a starved CPU, a GC pause) must not leave "on time" by
 * its own clock: it is late, it books a fresh slot, and past the plan's J it is counted and logged. On a fake clock.
 */
@ExtendWith(RedisExtension.class)
class LateWakeUpTest {
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** A bucket whose caller only gets to run 30 ms after the answer arrived. */
  private static final class SlowToWake extends ForwardingBucket {
    private final FakeTime time;

    SlowToWake(TokenBucket delegate, FakeTime time) {
      super(delegate);
      this.time = time;
    }

    @Override
    public Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException,
        InterruptedException {
      Acquisition a = real.acquire(cost, maxWait);
      time.advanceMillis(30);
      return a;
    }
  }

  private RedisTokenBucket bucket(TestRedis redis, String name, double capacity, double rate) {
    return RedisTesting.onFakeTime(redis.newRedisson(), redis.keyPrefix(), name, capacity, rate, time);
  }

  private void call(ThrottlingInterceptor throttle, int times) throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(ArrivalRecorder.ok());
      server.start();
      OkHttpClient client = new OkHttpClient.Builder().addNetworkInterceptor(throttle).build();
      for (int i = 0; i < times; i++) {
        try (Response r = client.newCall(new Request.Builder().url(server.url("/x")).build()).execute()) {
          assertThat(r.code()).isEqualTo(200);
        }
      }
      assertThat(server.getRequestCount()).isEqualTo(times);
    }
  }

  @Test
  void aLateCallerRebooksAndPastThePlansJitterIsCounted(TestRedis redis) throws Exception {
    RedisTokenBucket shared = bucket(redis, "late", 100, 0.01);
    QuotaPlan plan = new QuotaPlan(100, 100, Duration.ofMillis(10), Duration.ofMillis(5), 1, 1, "test plan");
    ThrottlingInterceptor throttle = ThrottlingInterceptor.of(ThrottleTesting.builder(new SlowToWake(shared, time),
        time).plan(plan).meterRegistry(registry).build());
    assertThat(throttle.throttle().status().get(0).sinceMarginExceeded()).isEmpty();
    call(throttle, 1);
    time.advanceMillis(250);
    BucketStatus status = throttle.throttle().status().get(0);
    assertThat(status.marginExceeded()).as("what the health indicator reads").isEqualTo(1);
    assertThat(status.sinceMarginExceeded()).hasValueSatisfying(ago -> assertThat(ago)
        .isBetween(Duration.ofMillis(250), Duration.ofMillis(260)));
    assertThat(status.localFallbackActive()).isFalse();
    assertThat(registry.get("bacen.throttle.rebooked").counter().count())
        .as("30 ms late > 5 ms late limit: a fresh slot each time, %d times at most", ThrottleTesting.MAX_REBOOKS)
        .isEqualTo(ThrottleTesting.MAX_REBOOKS);
    assertThat(registry.get("bacen.throttle.margin.exceeded").counter().count()).as("30 ms > J = 10 ms").isEqualTo(1);
    assertThat(registry.get("bacen.throttle.lateness").timer().max(TimeUnit.MILLISECONDS)).isEqualTo(30);
    // the missed slots were not given back: 1 call cost 1 + 3 tokens, then 4 x 30 ms + 250 ms refilled 0.0037
    assertThat(shared.acquire(1, Duration.ZERO).remaining()).isCloseTo(100 - 4 + 0.0037 - 1, within(1e-9));
  }

  @Test
  void anOnTimeCallerNeitherRebooksNorExceedsTheMargin(TestRedis redis) throws Exception {
    RedisTokenBucket shared = bucket(redis, "ontime", 2, 20);
    call(ThrottlingInterceptor.of(ThrottleTesting.builder(shared, time).meterRegistry(registry)
        .plan(QuotaPlanner.plan(ProviderPolicy.tokenBucket(3, 21, Duration.ofSeconds(1)), Duration.ofMillis(40)))
            .build()), 6);
    assertThat(registry.get("bacen.throttle.margin.exceeded").counter().count()).isZero();
    assertThat(registry.get("bacen.throttle.rebooked").counter().count()).isZero();
    assertThat(registry.get("bacen.throttle.lateness").timer().max(TimeUnit.NANOSECONDS)).isZero();
    assertThat(registry.get("bacen.throttle.permits").tag("result", "granted").counter().count()).isEqualTo(6);
  }
}
