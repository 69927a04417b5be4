package io.pixquota.throttle.redis;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.List;
import org.redisson.api.RedissonClient;

/**
 * Where the shared buckets live, in one syntax for every topology, checked when it is read:
 * <ul>
 *   <li>{@code redis://[user:password@]host[:port][/db]}, or {@code rediss://} for TLS: one node;</li>
 *   <li>{@code redis-sentinel://[user:password@]host:port,host:port,.../MASTER_NAME[/db]} ({@code rediss-sentinel}
 *       for TLS): the master that these Sentinels know by that name, found again after a failover;</li>
 *   <li>{@code redis-cluster://[user:password@]host:port,host:port,...} ({@code rediss-cluster} for TLS): a Redis
 *       Cluster, any of its nodes as seeds (a cluster has no database index).</li>
 * </ul>
 * {@link #connect} builds the {@link RedissonClient}; the SDK's own clients never let Redisson retry a command (a
 * retried script books a second slot), start lazily (a client built while Redis is down recovers by itself) and
 * re-read a Cluster's or Sentinels' view of the masters every second (Redisson's default for a Cluster is 5 s, which
 * is how long a promoted replica would stay unused).
 * {@link #toString()} never shows the password. Immutable.
 */
public final class RedisAddress {
  /** The three shapes a Redis deployment takes. */
  public enum Topology { SINGLE, SENTINEL, CLUSTER }

  /** One {@code host:port} of the address. */
  public record Node(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  private final Topology topology;
  private final boolean tls;
  private final List<Node> nodes;
  private final String username;
  private final String password;
  private final String masterName;
  private final int database;

  RedisAddress(Topology topology, boolean tls, List<Node> nodes, String username, String password,
      String masterName, int database) {
    this.topology = topology;
    this.tls = tls;
    this.nodes = List.copyOf(nodes);
    this.username = username;
    this.password = password;
    this.masterName = masterName;
    this.database = database;
  }

  /**
   * Reads an address. User info is percent-decoded (RFC 3986): write '%' as {@code %25}; '@', '/' and spaces may be
   * written as they are or as {@code %40}, {@code %2F}, {@code %20}. A user without a password, an empty password or
   * an '@' with nothing before it are refused rather than sent to Redis as an AUTH that cannot be meant.
   *
   * @throws IllegalArgumentException naming what is wrong, with the address shown without its user info
   */
  public static RedisAddress parse(String url) {
    return RedisUrlParser.parse(url);
  }

  public Topology topology() {
    return topology;
  }

  /** The node, the Sentinels, or the cluster's seed nodes, as given. */
  public List<Node> nodes() {
    return nodes;
  }

  /** The Sentinels' name for the master; null for the other topologies. */
  public String masterName() {
    return masterName;
  }

  public int database() {
    return database;
  }

  public boolean tls() {
    return tls;
  }

  /** A client with the SDK's settings, at most {@code timeout} per command, 4 idle connections per node at least. */
  public RedissonClient connect(Duration timeout) {
    return connect(timeout, 4);
  }

  /**
   * A client with the SDK's settings: lazy start, no Redisson retries, {@code timeout} per command (and at least 1 s
   * to connect), at least {@code minimumIdle} open connections per node (a pool that grows in the middle of a burst
   * pays for it there), never fewer than 64 in a pool.
   */
  public RedissonClient connect(Duration timeout, int minimumIdle) {
    Checks.positiveAtMostADay("timeout", timeout);
    if (minimumIdle < 1 || minimumIdle > 1024) {
      throw new IllegalArgumentException("minimumIdle must be within 1..1024, but was " + minimumIdle);
    }
    return RedissonClients.connect(this, timeout, minimumIdle);
  }

  /**
   * A Lettuce client with the SDK's settings: a {@code RedisClient} for one node or a Sentinel address, a
   * {@code RedisClusterClient} for a Cluster (its view of the masters refreshed every second, and at once on a
   * MOVED); {@code timeout} per command (at least 1 s to connect); commands refused at once while disconnected
   * rather than queued (a queued script would book a slot for a caller who gave up), reconnecting by itself. It
   * connects at the first command (for {@link LettuceStore#of}). Needs {@code io.lettuce:lettuce-core} on the class
   * path. The caller shuts it down.
   */
  public io.lettuce.core.AbstractRedisClient connectLettuce(Duration timeout) {
    Checks.positiveAtMostADay("timeout", timeout);
    return LettuceClients.connect(this, timeout);
  }

  String username() {
    return username;
  }

  String password() {
    return password;
  }

  /** The address without its password. */
  @Override
  public String toString() {
    String scheme = (tls ? "rediss" : "redis") + switch (topology) {
      case SINGLE -> "";
      case SENTINEL -> "-sentinel";
      case CLUSTER -> "-cluster";
    };
    StringBuilder sb = new StringBuilder(scheme).append("://");
    if (username != null || password != null) {
      sb.append("****@");
    }
    sb.append(String.join(",", nodes.stream().map(Node::toString).toList()));
    if (masterName != null) {
      sb.append('/').append(masterName);
    }
    if (database != 0) {
      sb.append('/').append(database);
    }
    return sb.toString();
  }

  /** A URL, well-formed or not, without anything that could be its user info (everything before its last '@'). */
  public static String redacted(String url) {
    if (url == null) {
      return "null";
    }
    int at = url.lastIndexOf('@');
    if (at < 0) {
      return url;
    }
    int scheme = url.indexOf("://");
    return (scheme >= 0 && scheme < at ? url.substring(0, scheme + 3) : "") + "****" + url.substring(at);
  }
}
