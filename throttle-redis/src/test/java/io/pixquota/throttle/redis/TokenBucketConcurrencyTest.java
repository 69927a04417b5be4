package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.WindowAudit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/** Many callers, two separate Redisson clients (two "replicas"), one bucket, the Redis clock. */
@ExtendWith(RedisExtension.class)
class TokenBucketConcurrencyTest {

  @Test
  void lastTokenRaceHasExactlyOneWinnerEveryTime(TestRedis redis) throws Exception {
    RedissonClient a = redis.newRedisson();
    RedissonClient b = redis.newRedisson();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 200; round++) {
        TokenBucketConfig config = TokenBucketConfig.custom("race" + round).keyPrefix(redis.keyPrefix())
            .limit(1, 0.001).build();
        RedisTokenBucket first = RedisTokenBucket.create(RedissonStore.of(a), config);
        RedisTokenBucket second = RedisTokenBucket.create(RedissonStore.of(b), config);
        CyclicBarrier start = new CyclicBarrier(2);
        Future<Acquisition> f1 = pool.submit(() -> {
          start.await();
          return first.acquire(1, Duration.ZERO);
        });
        Future<Acquisition> f2 = pool.submit(() -> {
          start.await();
          return second.acquire(1, Duration.ZERO);
        });
        int winners = (f1.get(10, TimeUnit.SECONDS).granted() ? 1 : 0)
            + (f2.get(10, TimeUnit.SECONDS).granted() ? 1 : 0);
        assertThat(winners).as("round %d", round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void fiftyConcurrentAcquirersGetTheBurstAndThenDistinctSlotsOneOverRateApartInArrivalOrder(TestRedis redis)
      throws Exception {
    // r = 0.5/s: one token every 2 s, far longer than the burst of calls takes, so no refill blurs the count.
    TokenBucketConfig config = TokenBucketConfig.custom("fifty").keyPrefix(redis.keyPrefix()).limit(10, 0.5).build();
    RedisTokenBucket[] replicas = {
        RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config),
            RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config)};
    List<Acquisition> results = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(50);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      RedisTokenBucket bucket = replicas[i % 2];
      futures.add(pool.submit(() -> {
        go.await();
        results.add(bucket.acquire(1, Duration.ofMinutes(5)));
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdownNow();

    assertThat(results).hasSize(50).allMatch(Acquisition::granted);
    assertThat(results.stream().filter(r -> r.waitTime().isZero()).count()).isEqualTo(10);
    List<Acquisition> waiting = new ArrayList<>(results.stream().filter(r -> !r.waitTime().isZero()).toList());
    // Arrival order = the order in which Redis decided (decision time = slot - wait).
    waiting.sort(Comparator.comparingLong((Acquisition r) -> r.slotMicros() - r.waitTime().toNanos() / 1000)
        .thenComparingLong(Acquisition::slotMicros));
    for (int i = 1; i < waiting.size(); i++) {
      long gap = waiting.get(i).slotMicros() - waiting.get(i - 1).slotMicros();
      assertThat(gap).as("gap between waiter %d and %d", i - 1, i).isBetween(1_999_998L, 2_000_002L);
    }
  }

  @Test
  void admittedWorkInEveryWindowIsAtMostBurstPlusRateTimesLength(TestRedis redis) throws Exception {
    // Real Redis clock, two clients, eight threads hammering for 1.5 s at several times the rate.
    double capacity = 5;
    double rate = 40;
    TokenBucketConfig config = TokenBucketConfig.custom("window").keyPrefix(redis.keyPrefix())
        .limit(capacity, rate).build();
    RedisTokenBucket[] replicas = {
        RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config),
            RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config)};
    WindowAudit audit = new WindowAudit();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      RedisTokenBucket bucket = replicas[t % 2];
      Random random = new Random(t);
      futures.add(pool.submit(() -> {
        while (System.nanoTime() < end) {
          double cost = random.nextBoolean() ? 1 : 2.5;
          audit.add(bucket.acquire(cost, Duration.ofMillis(random.nextInt(300))), cost);
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdownNow();

    assertThat(audit.size()).isGreaterThan(50);
    for (long windowMicros : new long[] {0, 10_000, 100_000, 250_000, 1_000_000}) {
      double bound = capacity + rate * windowMicros / 1e6 + 1e-6;
      assertThat(audit.maxInWindow(windowMicros)).as("window %d us", windowMicros).isLessThanOrEqualTo(bound);
    }
    // And the bucket is used, not just safe: a 1 s window holds nearly B + r.
    assertThat(audit.maxInWindow(1_000_000)).isGreaterThan(0.9 * (capacity + rate));
  }
}
