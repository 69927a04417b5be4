package io.pixquota.bench;

import io.pixquota.harness.Redissons;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Callable;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.api.redisnode.RedisSingle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One process of scenario 4: one limiter and nothing else, in PING-then-acquire pairs, each timed; prints
 * {@code RESULT {"p50": ..., "p99": ..., "pingP50": ..., "pingP99": ...}} in nanoseconds. A JVM of its own, so that
 * no other limiter's code warms, pollutes or speeds up the paths this one and its PING take.
 */
@Command(name = "latency-child", hidden = true, description = "Child process of 'bench peers', scenario 4.")
final class LatencyChild implements Callable<Integer> {
  private static final int WARM_UP_PAIRS = 5000;
  private static final int ALLOCATION_CALLS = 5000;

  @Option(names = "--redis-url", required = true) String redisUrl;
  @Option(names = "--limiter", required = true) Limiter limiter;
  @Option(names = "--samples", defaultValue = "20000") int samples;

  /**
   * What one acquire allocates on the calling thread (the JVM's own count of the thread's allocated bytes, over
   * {@code ALLOCATION_CALLS} calls after the timed ones); Redisson's I/O threads are not counted. -1 where the JVM
   * does not count.
   */
  private static double bytesPerAcquire(Limiter.Gate gate) throws Exception {
    if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
        || !threads.isThreadAllocatedMemorySupported()) {
      return -1;
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < ALLOCATION_CALLS; i++) {
      gate.tryTake();
    }
    return (double) (threads.getCurrentThreadAllocatedBytes() - before) / ALLOCATION_CALLS;
  }

  @Override
  public Integer call() throws Exception {
    RedissonClient redisson = Redissons.defaults(redisUrl);
    if (limiter != null && limiter.onLettuce()) {
      Limiter.useLettuceAt(redisUrl);
    }
    try {
      RedisSingle node = redisson.getRedisNodes(RedisNodes.SINGLE);
      // limits that grant every decision: nobody waits
      Limiter.Gate gate = limiter.open(redisson, "latency-" + System.nanoTime(), 1_000_000_000, 1_000_000_000);
      long[] ping = new long[samples];
      long[] acquire = new long[samples];
      for (int i = -WARM_UP_PAIRS; i < samples; i++) {
        long t0 = System.nanoTime();
        node.getInstance().ping();
        long t1 = System.nanoTime();
        if (!gate.tryTake()) {
          throw new IllegalStateException(limiter.label() + " refused although its limit is 1e9/s");
        }
        long t2 = System.nanoTime();
        if (i >= 0) {
          ping[i] = t1 - t0;
          acquire[i] = t2 - t1;
        }
      }
      Percentiles p = Percentiles.of(ping);
      Percentiles a = Percentiles.of(acquire);
      System.out.println("RESULT {\"p50\": " + a.at(50) + ", \"p99\": " + a.at(99) + ", \"pingP50\": " + p.at(50)
          + ", \"pingP99\": " + p.at(99) + ", \"bytesPerAcquire\": " + bytesPerAcquire(gate) + "}");
    } finally {
      redisson.shutdown();
      Limiter.closeLettuce();
    }
    return 0;
  }
}
