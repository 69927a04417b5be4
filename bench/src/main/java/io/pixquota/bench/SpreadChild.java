package io.pixquota.bench;

import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One process of {@code bench scaleout}: threads taking decisions on {@code --keys} buckets (each thread walks them
 * in turn) through the SDK's client for any topology, with our bucket (limits so large that every decision grants,
 * a write each) or a trivial script by SHA (the ceiling). Counts the decisions that start within the counted window
 * and prints {@code RESULT {"decisions": n}}.
 */
@Command(name = "spread-child", hidden = true, description = "Child process of 'bench scaleout'.")
final class SpreadChild implements Callable<Integer> {
  @Option(names = "--redis-url", required = true) String redisUrl;
  @Option(names = "--keys", defaultValue = "64") int keys;
  @Option(names = "--threads", defaultValue = "16") int threads;
  @Option(names = "--seconds", defaultValue = "5") double seconds;
  @Option(names = "--warmup-seconds", defaultValue = "2") double warmup;
  @Option(names = "--start-at-ms", required = true) long startAtMs;
  @Option(names = "--trivial", description = "The ceiling: a trivial script instead of our bucket.") boolean trivial;

  @Override
  public Integer call() throws Exception {
    RedissonClient redisson = RedisAddress.parse(redisUrl).connect(Duration.ofSeconds(3), threads);
    try {
      List<PeerHot.Decision> decisions = new ArrayList<>();
      RScript script = redisson.getScript(StringCodec.INSTANCE);
      String sha = trivial ? script.scriptLoad(PeerHot.TRIVIAL) : null; // Redisson loads it on every master
      for (int k = 0; k < keys; k++) {
        String name = "spread-" + k;
        if (trivial) {
          String key = "{" + name + "}:trivial";
          decisions.add(() -> script.<Long>evalSha(key, RScript.Mode.READ_WRITE, sha, RScript.ReturnType.INTEGER,
              List.of(key)) == 1L);
        } else {
          RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.custom(name)
              .keyPrefix("spread:").limit(1e9, 1e9).build());
          bucket.preload();
          decisions.add(() -> bucket.acquire(1, Duration.ZERO).granted());
        }
      }
      for (int i = 0; i < 4 * keys; i++) {
        decisions.get(i % keys).take();
      }
      DecisionRun.countAndReport(threads, startAtMs, warmup, seconds,
          (thread, i) -> decisions.get((int) ((thread + i) % keys)).take()); // each thread walks every bucket
    } finally {
      redisson.shutdown();
    }
    return 0;
  }
}
