package io.pixquota.throttle.redis;

import io.lettuce.core.AbstractRedisClient;
import io.pixquota.harness.RedisCluster;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.BucketGroupContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The bucket group contract on a real 3-master Redis Cluster, through the Lettuce cluster client the SDK builds from a
 * {@code redis-cluster://} address; the group on the contract's clock (a cluster's nodes keep their own TIME). Each
 * group's keys under a prefix of their own, so groups land on different masters.
 */
class LettuceBucketGroupOnClusterTest extends BucketGroupContract {
  private static final FakeTime TIME = FakeTime.manual(50_000);
  private static RedisCluster cluster;
  private static AbstractRedisClient lettuce;
  private static int run;

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

  @Override
  protected FakeTime time() {
    return TIME;
  }

  @Override
  protected BucketGroup group(String name) {
    return RedisBucketGroup.create(LettuceStore.of(lettuce), name, "cbg" + (++run) + ":", TIME.clock(), TIME);
  }
}
