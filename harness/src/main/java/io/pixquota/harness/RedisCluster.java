package io.pixquota.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A Redis Cluster of private {@code redis-server} processes on loopback: {@code masters} masters sharing the 16384
 * slots evenly, one replica each, in sync when {@link #start} returns, node timeout 1 s (a failed master is
 * replaced within a few seconds). Built with plain cluster commands that Redis 6.2 and 7 both have (ADDSLOTS, MEET,
 * REPLICATE), so no {@code redis-cli} is needed. Every process ends, by its PID, on {@link #close()}.
 */
public final class RedisCluster implements AutoCloseable {
  /** Slots in a Redis Cluster. */
  public static final int SLOTS = 16_384;

  private final List<PrivateRedisServer> masters = new ArrayList<>();
  private final List<PrivateRedisServer> replicas = new ArrayList<>();

  private RedisCluster() {}

  /**
   * Starts {@code masters} masters and as many replicas, and waits until every node reports {@code cluster_state:ok}
   * and every replica is attached.
   */
  public static RedisCluster start(int masters) {
    RedisCluster cluster = new RedisCluster();
    try {
      for (int i = 0; i < masters; i++) {
        cluster.masters.add(cluster.node());
      }
      for (int i = 0; i < masters; i++) {
        cluster.replicas.add(cluster.node());
      }
      cluster.assemble();
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private PrivateRedisServer node() {
    int port = FreePorts.pickForCluster();
    return PrivateRedisServer.startOn(port, "--cluster-enabled", "yes", "--cluster-config-file",
        "nodes.conf", // in the node's own directory, kept across a restart
        "--cluster-node-timeout", "1000", "--repl-diskless-sync-delay", "0");
  }

  private void assemble() {
    int n = masters.size();
    for (int i = 0; i < n; i++) {
      int from = SLOTS * i / n;
      int to = SLOTS * (i + 1) / n - 1;
      // ADDSLOTS with every slot named: ADDSLOTSRANGE is Redis 7's, and the suite runs on 6.2 too.
      List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
      for (int slot = from; slot <= to; slot++) {
        command.add(Integer.toString(slot));
      }
      call(masters.get(i), command.toArray(String[]::new));
    }
    PrivateRedisServer first = masters.get(0);
    for (PrivateRedisServer node : all()) {
      if (node != first) {
        call(node, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(first.port()));
      }
    }
    awaitUntil("every node knows the others", () -> all().stream()
        .allMatch(node -> nodesLines(node).size() == all().size()));
    for (int i = 0; i < n; i++) {
      String masterId = (String) call(masters.get(i), "CLUSTER", "MYID");
      PrivateRedisServer replica = replicas.get(i);
      awaitUntil("the replica sees its master", () -> nodesLines(replica).stream()
          .anyMatch(l -> l.startsWith(masterId + " ") && l.contains("master")));
      call(replica, "CLUSTER", "REPLICATE", masterId);
    }
    awaitHealthy();
    // A replica that never finished its first sync refuses to fail over ("Disconnected from master for longer than
    // allowed"): a test that kills a master must start with every replica in sync.
    awaitUntil("every replica in sync with its master", () -> replicas.stream().allMatch(RedisCluster::inSync));
  }

  /** Whether {@code replica}'s link to its master is up (its first full sync is done). */
  static boolean inSync(PrivateRedisServer replica) {
    return String.valueOf(call(replica, "INFO", "replication")).contains("master_link_status:up");
  }

  /** Waits (10 s at most) until every live node says {@code cluster_state:ok} and agrees on the slot owners. */
  public void awaitHealthy() {
    awaitUntil("cluster_state:ok on every live node", () -> all().stream().filter(PrivateRedisServer::isAlive)
        .allMatch(node -> String.valueOf(call(node, "CLUSTER", "INFO")).contains("cluster_state:ok")));
  }

  /** The cluster address in the SDK's syntax, every master as a seed. */
  public String url() {
    StringBuilder sb = new StringBuilder("redis-cluster://");
    for (int i = 0; i < masters.size(); i++) {
      sb.append(i == 0 ? "" : ",").append("127.0.0.1:").append(masters.get(i).port());
    }
    return sb.toString();
  }

  /** The masters, in slot order: master {@code i} served slots [16384 i / n, 16384 (i + 1) / n) at start. */
  public List<PrivateRedisServer> masters() {
    return List.copyOf(masters);
  }

  public List<PrivateRedisServer> replicas() {
    return List.copyOf(replicas);
  }

  /** Every node, masters first. */
  public List<PrivateRedisServer> all() {
    List<PrivateRedisServer> all = new ArrayList<>(masters);
    all.addAll(replicas);
    return all;
  }

  /** The slot of a key, as the cluster computes it. */
  public long slot(String key) {
    return (Long) call(masters.get(0), "CLUSTER", "KEYSLOT", key);
  }

  /** The index of the master that served {@code slot} when the cluster was built. */
  public int masterIndexAtStart(long slot) {
    return (int) (slot * masters.size() / SLOTS);
  }

  /** Whether {@code node} is a master now (replicas are promoted when their master fails). */
  public boolean isMaster(PrivateRedisServer node) {
    return String.valueOf(call(node, "ROLE")).startsWith("[master");
  }

  private List<String> nodesLines(PrivateRedisServer node) {
    return String.valueOf(call(node, "CLUSTER", "NODES")).lines().filter(l -> !l.isBlank()).toList();
  }

  private static Object call(PrivateRedisServer node, String... command) {
    try (RespConnection c = node.rawConnection()) {
      return c.call(command);
    }
  }

  static void awaitUntil(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Redis: not within 10 s: " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting until " + what, e);
      }
    }
  }

  /** Ends every node by its PID. */
  @Override
  public void close() {
    all().forEach(PrivateRedisServer::close);
  }
}
