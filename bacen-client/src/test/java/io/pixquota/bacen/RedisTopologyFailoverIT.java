package io.pixquota.bacen;

import static io.pixquota.bacen.LoadUnderFault.B;
import static io.pixquota.bacen.LoadUnderFault.R;
import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RedisCluster;
import io.pixquota.harness.RedisSentinels;
import org.junit.jupiter.api.Test;

/**
 * Real time, real processes ({@link LoadUnderFault}): the shared bucket on a Redis Cluster and on a Sentinel-managed
 * pair, through the SDK's own client built from {@code redis-cluster://} and {@code redis-sentinel://} addresses,
 * while the master that holds the bucket is killed by its PID, or restarted empty before anyone notices.
 */
class RedisTopologyFailoverIT {
  /** The state the promoted replica missed, or the restarted master forgot, may cost one extra burst. */
  private static final long BOUND = (long) (2 * B + R * 5) + 2;

  private static PrivateRedisServer masterOf(RedisCluster cluster, String bucket) {
    return cluster.masters().get(cluster.masterIndexAtStart(cluster.slot("{" + bucket + "}")));
  }

  @Test
  void aClusterMasterKilledIsReplacedAndEveryCallEndsServedOrTyped() throws Exception {
    try (RedisCluster cluster = RedisCluster.start(3)) {
      PrivateRedisServer master = masterOf(cluster, "pix");
      LoadUnderFault.Outcome o = LoadUnderFault.run(PixClientConfig.builder().redisUrl(cluster.url()), 12,
          master::kill);
      System.err.println("cluster, master killed: " + o);
      assertThat(o.other()).isZero();
      assertThat(o.served()).as("served again after the failover").isGreaterThan((long) (B + R * 9));
      assertThat(o.mostIn5s()).isLessThanOrEqualTo(BOUND);
    }
  }

  @Test
  void aClusterMasterRestartedEmptyLosesTheStateWithinOneExtraBurst() throws Exception {
    try (RedisCluster cluster = RedisCluster.start(3)) {
      PrivateRedisServer master = masterOf(cluster, "pix");
      LoadUnderFault.Outcome o = LoadUnderFault.run(PixClientConfig.builder().redisUrl(cluster.url()), 9,
          master::restart);
      System.err.println("cluster, master restarted empty: " + o);
      assertThat(o.other()).isZero();
      assertThat(o.mostIn5s()).isLessThanOrEqualTo(BOUND);
    }
  }

  @Test
  void aSentinelMasterKilledIsReplacedAndEveryCallEndsServedOrTyped() throws Exception {
    try (RedisSentinels group = RedisSentinels.start()) {
      LoadUnderFault.Outcome o = LoadUnderFault.run(PixClientConfig.builder().redisUrl(group.url()), 12,
          () -> group.master().kill());
      System.err.println("sentinel, master killed: " + o);
      assertThat(o.other()).isZero();
      assertThat(group.masterPortNow()).as("the replica was promoted").isEqualTo(group.replica().port());
      assertThat(o.served()).as("served again after the failover").isGreaterThan((long) (B + R * 9));
      assertThat(o.mostIn5s()).isLessThanOrEqualTo(BOUND);
    }
  }
}
