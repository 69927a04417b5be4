package io.pixquota.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The Cluster and the Sentinel group come up whole, and end whole. */
class RedisTopologiesTest {

  @Test
  void aClusterOfThreeMastersAndThreeReplicasServesEverySlot() {
    try (RedisCluster cluster = RedisCluster.start(3)) {
      assertThat(cluster.all()).hasSize(6).allMatch(PrivateRedisServer::isAlive);
      assertThat(cluster.masters()).allMatch(cluster::isMaster);
      assertThat(cluster.replicas()).noneMatch(cluster::isMaster).allMatch(RedisCluster::inSync);
      assertThat(cluster.url()).startsWith("redis-cluster://127.0.0.1:");
      assertThat(cluster.masterIndexAtStart(cluster.slot("{a}"))).isBetween(0, 2);
      try (RespConnection c = cluster.masters().get(0).rawConnection()) {
        assertThat(String.valueOf(c.call("CLUSTER", "INFO"))).contains("cluster_slots_assigned:16384");
      }
    }
  }

  @Test
  void threeSentinelsKnowTheMasterByName() {
    try (RedisSentinels group = RedisSentinels.start()) {
      assertThat(group.masterPortNow()).isEqualTo(group.master().port());
      assertThat(RedisCluster.inSync(group.replica())).isTrue();
      assertThat(group.url()).startsWith("redis-sentinel://127.0.0.1:").endsWith("/pixquota");
    }
  }

  /** A replica's full sync writes dump.rdb; a server started later elsewhere must not load it. */
  @Test
  void aFreshServerStartsEmptyAfterAReplicaHasSynced() {
    try (RedisSentinels group = RedisSentinels.start()) {
      try (RespConnection master = group.master().rawConnection()) {
        master.call("SET", "left-behind", "1");
      }
      RedisCluster.awaitUntil("the replica has the key", () -> {
        try (RespConnection replica = group.replica().rawConnection()) {
          return "1".equals(replica.call("GET", "left-behind"));
        }
      });
      assertThat(Path.of("dump.rdb")).doesNotExist();
      try (PrivateRedisServer fresh = PrivateRedisServer.start(); RespConnection c = fresh.rawConnection()) {
        assertThat(c.call("DBSIZE")).isEqualTo(0L);
      }
    }
  }
}
