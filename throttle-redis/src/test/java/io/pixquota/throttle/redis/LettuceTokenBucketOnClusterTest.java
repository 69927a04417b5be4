package io.pixquota.throttle.redis;

import io.lettuce.core.AbstractRedisClient;
import io.pixquota.harness.RedisCluster;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.TokenBucketContract;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * The token bucket contract on a real 3-master Redis Cluster, through the Lettuce cluster client the SDK builds from a
 * {@code redis-cluster://} address; client-clock mode, so the contract's test clock decides (a cluster's nodes keep
 * their own TIME). Each test's keys under a prefix of their own, so its buckets land on whichever master their name's
 * slot is on.
 */
class LettuceTokenBucketOnClusterTest extends TokenBucketContract {
  private static RedisCluster cluster;
  private static AbstractRedisClient lettuce;
  private static int run;
  private String prefix;

  @BeforeAll
  static void startCluster() {
    cluster = RedisCluster.start(3);
    lettuce = RedisAddress.parse(cluster.url()).connectLettuce(Duration.ofSeconds(2));
  }

  @AfterAll
  static void stopCluster() {
    lettuce.shutdown();
    cluster.close();
  }

  @BeforeEach
  void newPrefix() {
    prefix = "ctb" + (++run) + ":";
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits) {
    return bucket(name, limits, Map.of());
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits, Map<String, Double> shares) {
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).keyPrefix(prefix).clientClock(time.clock());
    limits.forEach(config::limit);
    if (!shares.isEmpty()) {
      config.shares(shares);
    }
    return RedisTokenBucket.create(LettuceStore.of(lettuce), config.build(), time);
  }
}
