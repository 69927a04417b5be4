package io.pixquota.bacen;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfigBuilder;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Real time, real processes: 40 callers keep a bucket of 8 + 9/s booked ahead (max wait 5 s) through a
 * {@link PixClient} while a fault hits its Redis; a mock BACEN that accepts everything notes every arrival. What one
 * run measured: the outcome of every call, the most arrivals in any 5 s window, and how long calls failed.
 */
final class LoadUnderFault {
  static final double B = 8;
  static final double R = 9;
  private static final long WINDOW_MICROS = 5_000_000;

  /** A fault, started 3 s into the run, on the caller's thread. */
  @FunctionalInterface
  interface Fault {
    void hit() throws Exception;
  }

  /**
   * @param served         calls the provider answered
   * @param throttled      calls our bucket refused, or could not decide on (Redis away): typed, not sent
   * @param other          anything else (must be 0)
   * @param mostIn5s       the most arrivals at the provider in any 5 s window
   * @param failingSeconds from the first to the last failed call (0 when none failed)
   */
  record Outcome(long served, long throttled, long other, long mostIn5s, double failingSeconds) {}

  private LoadUnderFault() {}

  /** Runs 40 callers for {@code seconds} against the mock; {@code config} names the Redis. */
  static Outcome run(PixClientConfigBuilder config, int seconds, Fault fault) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(10_000, 10_000, 1000))
        .threads(64).build())) {
      ExecutorService pool = Executors.newFixedThreadPool(40);
      ConcurrentLinkedQueue<long[]> failures = new ConcurrentLinkedQueue<>();
      long[] counts = new long[3];
      try (PixClient pix = PixClient.builder(config.baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
          .bucket(B, R).maxWait(Duration.ofSeconds(5)).redisTimeout(Duration.ofMillis(500))
          .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1)).build()).build()) {
        warmUpWhenRedisAnswers(pix, Duration.ofSeconds(15));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<long[]>> callers = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
          callers.add(pool.submit(() -> {
            long[] mine = new long[3];
            while (System.nanoTime() < end) {
              try {
                pix.getPix("E12345678202611301200ABCDEFGHIJK");
                mine[0]++;
              } catch (PixThrottledException e) {
                mine[1]++;
                failures.add(new long[] {System.nanoTime()});
                Thread.sleep(20); // a typed failure: the caller comes back a little later
              } catch (PixException e) {
                mine[2]++;
                Thread.sleep(20);
              }
            }
            return mine;
          }));
        }
        Thread.sleep(3_000); // real time is the point: the bucket is booked ahead by now
        fault.hit();
        for (Future<long[]> f : callers) {
          long[] mine = f.get(60, TimeUnit.SECONDS);
          for (int k = 0; k < 3; k++) {
            counts[k] += mine[k];
          }
        }
      } finally {
        pool.shutdownNow();
      }
      long first = failures.stream().mapToLong(f -> f[0]).min().orElse(0);
      long last = failures.stream().mapToLong(f -> f[0]).max().orElse(0);
      return new Outcome(counts[0], counts[1], counts[2], mostInWindow(mock.stats("demo", true)),
          (last - first) / 1e9);
    }
  }

  /** {@link PixClient#warmUp()} until Redis answers (a restarted node or a fresh topology may still be settling). */
  static void warmUpWhenRedisAnswers(PixClient pix, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        pix.warmUp();
        return;
      } catch (PixThrottledException settling) {
        if (System.nanoTime() > deadline) {
          throw settling;
        }
        Thread.sleep(50);
      }
    }
  }

  private static long mostInWindow(Map<String, Object> stats) {
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> events = (List<Map<String, Object>>) stats.get("events");
    long[] at = events.stream().mapToLong(e -> ((Number) e.get("atMicros")).longValue()).sorted().toArray();
    long best = 0;
    for (int start = 0, end = 0; start < at.length; start++) {
      while (end < at.length && at[end] < at[start] + WINDOW_MICROS) {
        end++;
      }
      best = Math.max(best, end - start);
    }
    return best;
  }
}
