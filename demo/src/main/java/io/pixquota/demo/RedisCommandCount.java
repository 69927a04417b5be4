package io.pixquota.demo;

import io.pixquota.harness.CommandCounter;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.redis.RedisAddress;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The commands clients send, counted with MONITOR on every data node behind an address: the one node, the master
 * and replicas a Sentinel names, or every node of a cluster. Not counted: a replica's link to its master (it replays
 * the master's writes, which were counted on the master) and the Sentinels' own connections (their health checks
 * are not the SDK's round trips), both found with CLIENT LIST when counting starts.
 */
final class RedisCommandCount implements AutoCloseable {
  private final List<CommandCounter> counters = new ArrayList<>();
  private final List<String> notCounted = new ArrayList<>();

  private RedisCommandCount() {}

  /**
   * Starts counting on every data node it can reach. Never fails: a node that cannot be reached (a Sentinel naming a
   * master that just died, say) is left out, and the count says it is partial ({@link #partial()}); the demo goes on.
   */
  static RedisCommandCount start(String url, long sinceEpochMs) {
    RedisAddress address = RedisAddress.parse(url);
    int at = url.lastIndexOf('@');
    String userInfo = at < 0 ? "" : url.substring(url.indexOf("://") + 3, at + 1);
    RedisCommandCount count = new RedisCommandCount();
    List<RedisAddress.Node> nodes;
    try {
      nodes = dataNodes(address, userInfo);
    } catch (RuntimeException e) {
      count.notCounted.add("the nodes behind " + address + " (" + e.getMessage() + ")");
      return count;
    }
    for (RedisAddress.Node node : nodes) {
      try {
        count.counters.add(new CommandCounter(URI.create("redis://" + userInfo + node), sinceEpochMs,
            notClients(node, userInfo)));
      } catch (IOException | RuntimeException e) {
        count.notCounted.add(node + " (unreachable)");
      }
    }
    return count;
  }

  /**
   * Why the count misses commands, or null when it saw every node to the end: nodes it could not reach at the start,
   * and nodes that went away during the run (killed, failed over).
   */
  String partial() {
    List<String> missed = new ArrayList<>(notCounted);
    for (CommandCounter c : counters) {
      if (c.ended()) {
        missed.add(c.toString() + " (went away during the run)");
      }
    }
    return missed.isEmpty() ? null : "not counted: " + String.join(", ", missed);
  }

  private static List<RedisAddress.Node> dataNodes(RedisAddress address, String userInfo) {
    RedisAddress.Node seed = address.nodes().get(0);
    return switch (address.topology()) {
      case SINGLE -> List.of(seed);
      case SENTINEL -> {
        List<RedisAddress.Node> nodes = new ArrayList<>();
        try (RespConnection c = RespConnection.open(seed.host(), seed.port())) {
          List<?> master = (List<?>) c.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", address.masterName());
          nodes.add(new RedisAddress.Node((String) master.get(0), Integer.parseInt((String) master.get(1))));
          for (Object replica : (List<?>) c.call("SENTINEL", "REPLICAS", address.masterName())) {
            List<?> fields = (List<?>) replica;
            nodes.add(new RedisAddress.Node((String) fields.get(fields.indexOf("ip") + 1),
                Integer.parseInt((String) fields.get(fields.indexOf("port") + 1))));
          }
        }
        yield nodes;
      }
      case CLUSTER -> {
        List<RedisAddress.Node> nodes = new ArrayList<>();
        try (RespConnection c = RespConnection.open(seed.host(), seed.port())) {
          auth(c, userInfo);
          for (String line : String.valueOf(c.call("CLUSTER", "NODES")).split("\n")) {
            if (!line.isBlank()) {
              String hostPort = line.split(" ")[1].split("@")[0];
              int colon = hostPort.lastIndexOf(':');
              nodes.add(new RedisAddress.Node(hostPort.substring(0, colon),
                  Integer.parseInt(hostPort.substring(colon + 1))));
            }
          }
        }
        yield nodes;
      }
    };
  }

  /** The addresses of a node's replication link to its master (flag M) and of the Sentinels' connections. */
  private static Set<String> notClients(RedisAddress.Node node, String userInfo) {
    Set<String> sources = new HashSet<>();
    try (RespConnection c = RespConnection.open(node.host(), node.port())) {
      auth(c, userInfo);
      for (String client : String.valueOf(c.call("CLIENT", "LIST")).split("\n")) {
        Map<String, String> fields = new HashMap<>();
        for (String field : client.trim().split(" ")) {
          int eq = field.indexOf('=');
          if (eq > 0) {
            fields.put(field.substring(0, eq), field.substring(eq + 1));
          }
        }
        boolean masterLink = fields.getOrDefault("flags", "").contains("M");
        if (masterLink || fields.getOrDefault("name", "").startsWith("sentinel-")) {
          sources.add(fields.get("addr"));
        }
      }
    }
    return sources;
  }

  private static void auth(RespConnection c, String userInfo) {
    if (userInfo.isEmpty()) {
      return;
    }
    String info = userInfo.substring(0, userInfo.length() - 1);
    int colon = info.indexOf(':');
    if (colon > 0) {
      c.call("AUTH", info.substring(0, colon), info.substring(colon + 1));
    } else {
      c.call("AUTH", colon == 0 ? info.substring(1) : info);
    }
  }

  /**
   * Commands clients sent on every node, scripts' inner commands excluded, and so are PINGs: the Redis client's
   * keep-alive checks of its idle connections (Redisson's, every 30 s per connection), which come with the client's
   * pool, not with calls; a run that crosses one of their rounds would count a pool's worth of them.
   */
  long commands() {
    return counters.stream().mapToLong(c -> c.commands() - c.pingCommands()).sum();
  }

  /** Lets every MONITOR catch up. */
  void settle() throws InterruptedException {
    for (CommandCounter c : counters) {
      c.settle();
    }
  }

  @Override
  public void close() {
    for (CommandCounter c : counters) {
      try {
        c.close();
      } catch (IOException e) {
        // the node is gone already
      }
    }
  }
}
