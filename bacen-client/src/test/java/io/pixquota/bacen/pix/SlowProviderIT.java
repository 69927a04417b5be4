package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The cap on calls in flight where it breaks first: a provider slower than the client's call timeout, and services
 * with other timeouts on one pool. The mock is the judge: it counts a request in flight from its arrival until its
 * answer starts to leave, whatever the client did meanwhile, and refuses the seventh with 429. Real time, scaled down
 * (answers in 1.5 s, calls that give up after 0.5 s); what is asserted is the judge's counts, not timing.
 */
@ExtendWith(RedisExtension.class)
class SlowProviderIT {
  private static final Duration PROVIDER = Duration.ofMillis(1500);

  private static MockBacen judge() throws Exception {
    return MockBacen.start(MockConfig.builder().latency(PROVIDER.toMillis(), 0).maxInFlight(6)
        .policy(QuotaPolicy.bucket(100_000, 100_000, 1000)).build());
  }

  private static PixClientConfigBuilder config(MockBacen mock, TestRedis redis) {
    return PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
        .bucketName(redis.keyPrefix().replace(":", "-") + "spi").bucket(1000, 1000).maxInFlight(6)
        .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1));
  }

  @Test
  void callsThatTimeOutBeforeTheProviderAnswersKeepTheirPermitsBlockingAndAsync(TestRedis redis) throws Exception {
    try (MockBacen mock = judge()) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      PixClientConfig config = config(mock, redis).maxWait(Duration.ofMillis(200)).callTimeout(Duration.ofMillis(500))
          .providerTimeout(PROVIDER.plusMillis(500)).build();
      ExecutorService threads = Executors.newFixedThreadPool(12);
      AtomicInteger mostAbandoned = new AtomicInteger();
      try (PixClient pix = PixClient.builder(config).redisson(redis.newRedisson()).meterRegistry(registry).build()) {
        pix.warmUp();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        List<Future<?>> callers = new ArrayList<>();
        for (int t = 0; t < 12; t++) {
          boolean async = t % 2 == 0;
          int caller = t;
          callers.add(threads.submit(() -> {
            for (int i = 0; System.nanoTime() < until; i++) {
              String e2e = String.format("E12345678202611301200ABC%02d%05d0", caller, i);
              try {
                if (async) {
                  CompletableFuture<Pix> f = pix.getPixAsync(e2e);
                  f.get(5, TimeUnit.SECONDS);
                } else {
                  pix.getPix(e2e);
                }
              } catch (ExecutionException e) {
                expected(e.getCause());
              } catch (PixException e) {
                expected(e);
              }
              mostAbandoned.accumulateAndGet((int) registry.get("bacen.throttle.pool.abandoned").gauge().value(),
                  Math::max);
            }
            return null;
          }));
        }
        for (Future<?> f : callers) {
          f.get(30, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }
      assertThat(mock.inFlightStats("demo")).as("the judge: never a seventh in flight, none refused")
          .containsEntry("mostSeen", 6).containsEntry("refused", 0);
      assertThat(mostAbandoned.get()).as("permits held for calls the client gave up on").isPositive();
      assertThat(registry.get("bacen.throttle.pool.releases.late").counter().count()).isZero();
      assertThat(registry.get("bacen.throttle.pool.permits.lost").counter().count()).isZero();
    }
  }

  /** Every call here times out at the client, or is refused for want of a permit: anything else fails the test. */
  private static void expected(Throwable failure) {
    if (!(failure instanceof PixTransportException) && !(failure instanceof PixThrottledException)) {
      throw new AssertionError("neither a timeout nor a refusal", failure);
    }
  }

  @Test
  void servicesWithLongAndShortLeasesOnOnePoolKeepTheCap(TestRedis redis) throws Exception {
    try (MockBacen mock = judge()) {
      PixClientConfig longLease = config(mock, redis).maxWait(Duration.ofSeconds(2)).callTimeout(Duration.ofSeconds(4))
          .providerTimeout(PROVIDER.plusMillis(500)).permitLease(Duration.ofSeconds(30)).build();
      PixClientConfig shortLease = config(mock, redis).maxWait(Duration.ofMillis(500))
          .callTimeout(Duration.ofSeconds(3)).providerTimeout(PROVIDER.plusMillis(500))
          .permitLease(Duration.ofMillis(2600)).build();
      SimpleMeterRegistry shortRegistry = new SimpleMeterRegistry();
      ExecutorService threads = Executors.newFixedThreadPool(16);
      try (PixClient a = PixClient.builder(longLease).redisson(redis.newRedisson()).build();
          PixClient b = PixClient.builder(shortLease).redisson(redis.newRedisson()).meterRegistry(shortRegistry)
              .build()) {
        a.warmUp();
        b.warmUp();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
        List<Future<?>> callers = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
          PixClient pix = t < 8 ? a : b;
          int caller = t;
          callers.add(threads.submit(() -> {
            for (int i = 0; System.nanoTime() < until; i++) {
              try {
                // ids end in 0: the mock answers 404 to ids ending in 404, and a caller the pool refuses at once
                // (no permit back before its deadline) goes round this loop hundreds of times
                pix.getPix(String.format("E12345678202611301200ABC%02d%05d0", caller, i));
              } catch (PixThrottledException refused) {
                // no permit within its max wait
              }
            }
            return null;
          }));
        }
        for (Future<?> f : callers) {
          f.get(30, TimeUnit.SECONDS);
        }
      } finally {
        threads.shutdownNow();
      }
      assertThat(mock.inFlightStats("demo")).as("the long-lease service's permits were never taken back")
          .containsEntry("mostSeen", 6).containsEntry("refused", 0);
      assertThat(shortRegistry.get("bacen.throttle.pool.permits.lost").counter().count()).isZero();
      assertThat(shortRegistry.get("bacen.throttle.pool.releases.late").counter().count()).isZero();
    }
  }
}
