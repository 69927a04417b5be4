package io.pixquota.bench;

import io.pixquota.throttle.redis.RedissonStore;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.CommandCounter;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.Redissons;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.api.redisnode.RedisSingle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The token bucket's own figures: uncontended acquire latency next to a Redis PING of the same run, and Redis round
 * trips per admitted call at 4x overload from 2 processes, next to the retry-loop design in the same run.
 */
@Command(name = "bucket", mixinStandardHelpOptions = true,
    description = "Acquire latency vs PING, and round trips per admitted call (reservation vs retry loop).")
final class BucketBench implements Callable<Integer> {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Option(names = "--samples", defaultValue = "5000",
      description = "Latency samples of each kind (default ${DEFAULT-VALUE}).")
  int samples;

  @Option(names = "--rate", defaultValue = "20",
      description = "Bucket refill per second in the overload phase (default ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--capacity", defaultValue = "8",
      description = "Bucket capacity in the overload phase (default ${DEFAULT-VALUE}).")
  double capacity;

  @Option(names = "--overload", defaultValue = "4", description = "Demand divided by rate (default ${DEFAULT-VALUE}).")
  double overload;

  @Option(names = "--seconds", defaultValue = "6",
      description = "How long each process generates demand (default ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--threads", defaultValue = "16", description = "Threads per process (default ${DEFAULT-VALUE}).")
  int threads;

  @Override
  public Integer call() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start()) {
      System.out.printf(Locale.ROOT, "bench bucket: private redis-server on %s, %d cores%n", redis.uri(),
          Runtime.getRuntime().availableProcessors());
      latency(redis.uri());
      System.out.println();
      System.out.println("| design | processes x threads | demand / rate | admitted | acquire calls | EVALSHA sent "
          + "| all client commands (MONITOR) | EVALSHA per admitted call | all commands per admitted call |");
      System.out.println("|---|---|---|---|---|---|---|---|---|");
      for (BucketLoad.Design design : BucketLoad.Design.values()) {
        overload(redis.uri(), design);
      }
    }
    return 0;
  }

  private void latency(URI uri) throws Exception {
    RedissonClient redisson = Redisson.create(Redissons.smallPool(uri.toString()));
    try {
      RedisSingle node = redisson.getRedisNodes(RedisNodes.SINGLE);
      RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson),
          TokenBucketConfig.custom("latency").keyPrefix("bench:").limit(1e9, 1e9).build());
      for (int i = 0; i < 2000; i++) { // warm-up of both paths
        node.getInstance().ping();
        bucket.acquire(1, Duration.ZERO);
      }
      long[] ping = new long[samples];
      long[] acquire = new long[samples];
      int block = 100;
      for (int start = 0; start < samples; start += block) { // interleaved blocks: the same noise for both
        for (int i = start; i < Math.min(samples, start + block); i++) {
          long t0 = System.nanoTime();
          node.getInstance().ping();
          ping[i] = System.nanoTime() - t0;
        }
        for (int i = start; i < Math.min(samples, start + block); i++) {
          long t0 = System.nanoTime();
          bucket.acquire(1, Duration.ZERO);
          acquire[i] = System.nanoTime() - t0;
        }
      }
      Percentiles p = Percentiles.of(ping);
      Percentiles a = Percentiles.of(acquire);
      System.out.println();
      System.out.println("| uncontended, " + samples + " samples each | p50 (us) | p99 (us) |");
      System.out.println("|---|---|---|");
      System.out.printf(Locale.ROOT, "| Redis PING (baseline) | %.0f | %.0f |%n", p.at(50) / 1e3, p.at(99) / 1e3);
      System.out.printf(Locale.ROOT, "| bucket acquire | %.0f | %.0f |%n", a.at(50) / 1e3, a.at(99) / 1e3);
      System.out.printf(Locale.ROOT, "| acquire / PING | %.2f | %.2f |%n", (double) a.at(50) / p.at(50),
          (double) a.at(99) / p.at(99));
    } finally {
      redisson.shutdown();
    }
  }

  private void overload(URI uri, BucketLoad.Design design) throws Exception {
    int processes = 2;
    double perThreadRate = overload * rate / (processes * threads);
    String prefix = "bench:" + design.name().toLowerCase(Locale.ROOT) + ":" + System.nanoTime() + ":";
    long startAt = System.currentTimeMillis() + 2500; // after both JVMs have started
    List<ReplicaProcess> children = new ArrayList<>();
    long granted = 0;
    long calls = 0;
    try (CommandCounter monitor = new CommandCounter(uri, System.currentTimeMillis())) {
      for (int i = 0; i < processes; i++) {
        children.add(ReplicaProcess.start(BenchMain.class, List.of("bucket-load", "--redis", uri.toString(),
            "--prefix", prefix, "--capacity", Double.toString(capacity), "--rate", Double.toString(rate),
            "--threads", Integer.toString(threads), "--per-thread-rate", Double.toString(perThreadRate),
            "--seconds", Double.toString(seconds), "--start-at-ms", Long.toString(startAt), "--design",
            design.name()), ProcessBuilder.Redirect.INHERIT));
      }
      for (ReplicaProcess child : children) {
        JsonNode counts = JSON.readTree(child.result(line -> { }));
        granted += counts.get("granted").asLong();
        calls += counts.get("acquireCalls").asLong();
        if (child.finish() != 0) {
          throw new IllegalStateException("a bucket-load process failed");
        }
      }
      monitor.settle();
      long commands = monitor.commands();
      long evals = monitor.evalCommands();
      System.out.printf(Locale.ROOT, "| %s | %d x %d | %.1f | %d | %d | %d | %d | %.3f | %.3f |%n",
          design.name().toLowerCase(Locale.ROOT).replace('_', '-'), processes, threads, overload, granted, calls,
          evals, commands, (double) evals / granted, (double) commands / granted);
    } finally {
      children.forEach(ReplicaProcess::close);
    }
  }
}
