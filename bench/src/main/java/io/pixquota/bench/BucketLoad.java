package io.pixquota.bench;

import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.harness.Redissons;
import io.pixquota.harness.ReplicaProtocol;
import io.pixquota.harness.Sleep;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One "replica" process of the bucket benchmark: threads that each want a call every {@code 1/perThreadRate}
 * seconds, admitted by the shared bucket with one of two designs. Prints one RESULT line of counts.
 */
@Command(name = "bucket-load", hidden = true, description = "Child process of 'bench bucket'.")
final class BucketLoad implements java.util.concurrent.Callable<Integer> {
  enum Design { RESERVATION, RETRY_LOOP }

  @Option(names = "--redis", required = true) String redis;
  @Option(names = "--prefix", required = true) String prefix;
  @Option(names = "--capacity", required = true) double capacity;
  @Option(names = "--rate", required = true) double rate;
  @Option(names = "--threads", required = true) int threads;
  @Option(names = "--per-thread-rate", required = true) double perThreadRate;
  @Option(names = "--seconds", required = true) double seconds;
  @Option(names = "--start-at-ms", required = true) long startAtMs;
  @Option(names = "--design", required = true) Design design;

  @Override
  public Integer call() throws Exception {
    RedissonClient redisson = Redisson.create(Redissons.smallPool(redis));
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson),
        TokenBucketConfig.custom("bench").keyPrefix(prefix).limit(capacity, rate).build());
    AtomicLong granted = new AtomicLong();
    AtomicLong acquireCalls = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long startNanos = Sleep.nanoTimeAt(startAtMs);
    long endNanos = startNanos + (long) (seconds * 1e9);
    long periodNanos = (long) (1e9 / perThreadRate);
    List<Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long offset = periodNanos * t / threads;
      futures.add(pool.submit(() -> {
        long next = startNanos + offset;
        while (next < endNanos) {
          Sleep.until(next);
          admit(bucket, acquireCalls);
          granted.incrementAndGet();
          next = Math.max(next + periodNanos, System.nanoTime());
        }
        return null;
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    redisson.shutdown();
    new ReplicaProtocol(System.out).result("{\"granted\":" + granted.get() + ",\"acquireCalls\":"
        + acquireCalls.get() + "}");
    return 0;
  }

  private void admit(RedisTokenBucket bucket, AtomicLong calls) throws InterruptedException, IOException {
    if (design == Design.RESERVATION) {
      calls.incrementAndGet();
      Acquisition a = bucket.acquire(1, Duration.ofMinutes(5));
      Sleep.until(System.nanoTime() + a.waitTime().toNanos());
      return;
    }
    while (true) { // the retry loop: ask, sleep the quoted wait, ask again
      calls.incrementAndGet();
      Acquisition a = bucket.acquire(1, Duration.ZERO);
      if (a.granted()) {
        return;
      }
      Sleep.until(System.nanoTime() + a.waitTime().toNanos());
    }
  }
}
