package io.pixquota.harness;

import java.util.ArrayList;
import java.util.List;

/**
 * A Sentinel-managed pair on loopback: a master, its replica, and three Sentinels watching them under the name
 * {@value #MASTER_NAME} (quorum 2, down after 1 s, failover timeout 3 s). Every process ends, by its PID, on
 * {@link #close()}.
 */
public final class RedisSentinels implements AutoCloseable {
  /** The name the Sentinels know the master by. */
  public static final String MASTER_NAME = "pixquota";

  private final PrivateRedisServer master;
  private final PrivateRedisServer replica;
  private final List<PrivateRedisServer> sentinels = new ArrayList<>();

  private RedisSentinels(PrivateRedisServer master, PrivateRedisServer replica) {
    this.master = master;
    this.replica = replica;
  }

  /** Starts the pair and the Sentinels, and waits until every Sentinel knows the master and its replica. */
  public static RedisSentinels start() {
    PrivateRedisServer master = PrivateRedisServer.start("--repl-diskless-sync-delay", "0");
    RedisSentinels group = new RedisSentinels(master, null);
    try {
      group = new RedisSentinels(master, PrivateRedisServer.start("--replicaof", "127.0.0.1",
          Integer.toString(master.port())));
      for (int i = 0; i < 3; i++) {
        group.sentinels.add(PrivateRedisServer.startWithConfig(FreePorts.pick(), "sentinel monitor " + MASTER_NAME
            + " 127.0.0.1 " + master.port() + " 2\n"
            + "sentinel down-after-milliseconds " + MASTER_NAME + " 1000\n"
            + "sentinel failover-timeout " + MASTER_NAME + " 3000\n"
            + "sentinel parallel-syncs " + MASTER_NAME + " 1\n", "--sentinel"));
      }
      RedisSentinels g = group;
      RedisCluster.awaitUntil("the replica in sync with the master", () -> RedisCluster.inSync(g.replica));
      RedisCluster.awaitUntil("every Sentinel knows the replica and the other Sentinels", () -> g.sentinels.stream()
          .allMatch(s -> String.valueOf(call(s, "SENTINEL", "MASTER", MASTER_NAME)).contains("num-slaves, 1,")
              && String.valueOf(call(s, "SENTINEL", "MASTER", MASTER_NAME)).contains("num-other-sentinels, 2,")));
      return group;
    } catch (RuntimeException e) {
      group.close();
      throw e;
    }
  }

  /** The address in the SDK's syntax: the three Sentinels and the master's name. */
  public String url() {
    StringBuilder sb = new StringBuilder("redis-sentinel://");
    for (int i = 0; i < sentinels.size(); i++) {
      sb.append(i == 0 ? "" : ",").append("127.0.0.1:").append(sentinels.get(i).port());
    }
    return sb.append('/').append(MASTER_NAME).toString();
  }

  public PrivateRedisServer master() {
    return master;
  }

  public PrivateRedisServer replica() {
    return replica;
  }

  /** The port of the master the Sentinels name now. */
  public int masterPortNow() {
    Object addr = call(sentinels.get(0), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
    return Integer.parseInt(String.valueOf(((List<?>) addr).get(1)));
  }

  private static Object call(PrivateRedisServer node, String... command) {
    try (RespConnection c = node.rawConnection()) {
      return c.call(command);
    }
  }

  /** Ends every process by its PID. */
  @Override
  public void close() {
    sentinels.forEach(PrivateRedisServer::close);
    if (replica != null) {
      replica.close();
    }
    master.close();
  }
}
