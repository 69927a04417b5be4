package io.pixquota.throttle.redis;

import io.pixquota.throttle.redis.internal.ConnectGuard;
import io.pixquota.throttle.redis.internal.SentinelProbe;
import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;

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

  private static final int TOPOLOGY_SCAN_MILLIS = 1000;

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
    int millis = (int) timeout.toMillis();
    int pool = Math.max(64, minimumIdle);
    Config config = new Config();
    config.setLazyInitialization(true);
    // One short script call per decision: netty's own default of 2 event loops per core is plenty (Redisson's is
    // 32 threads), and a few threads for Redisson's listeners (16 by default).
    int cores = Runtime.getRuntime().availableProcessors();
    config.setNettyThreads(Math.min(32, 2 * cores));
    config.setThreads(Math.min(16, Math.max(2, cores)));
    config.setExecutor(listenerThreads(Math.min(16, Math.max(2, cores))));
    BaseConfig<?> base = switch (topology) {
      case SINGLE -> config.useSingleServer().setAddress(address(nodes.get(0))).setDatabase(database)
          .setConnectionMinimumIdleSize(minimumIdle).setConnectionPoolSize(pool);
      case SENTINEL -> config.useSentinelServers().setMasterName(masterName).setDatabase(database)
          .addSentinelAddress(addresses()).setCheckSentinelsList(false).setScanInterval(TOPOLOGY_SCAN_MILLIS)
          .setMasterConnectionMinimumIdleSize(minimumIdle).setMasterConnectionPoolSize(pool);
      case CLUSTER -> config.useClusterServers().addNodeAddress(addresses()).setScanInterval(TOPOLOGY_SCAN_MILLIS)
          .setMasterConnectionMinimumIdleSize(minimumIdle).setMasterConnectionPoolSize(pool);
    };
    base.setUsername(username).setPassword(password).setTimeout(millis).setRetryAttempts(0)
        .setConnectTimeout(Math.max(1000, millis));
    RedissonClient client = Redisson.create(config);
    if (topology == Topology.SENTINEL && !tls) { // its first connect only to a master that answers: see the probe
      ConnectGuard.of(client).readyWhen(new SentinelProbe(nodes.stream().map(Node::toString).toList(), masterName,
          username, password));
    }
    return client;
  }

  /**
   * Redisson's listener threads as plain daemon threads. Its own are Netty's {@code FastThreadLocalThread}s, which
   * BlockHound counts as non-blocking: a reactive service's tests with BlockHound installed then failed on each idle
   * worker waiting for its next task. They end when idle for a minute, so none outlives the client.
   */
  private static ExecutorService listenerThreads(int threads) {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), task -> {
          Thread t = new Thread(task, "pixquota-redisson-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  private String[] addresses() {
    return nodes.stream().map(this::address).toArray(String[]::new);
  }

  private String address(Node node) {
    return (tls ? "rediss://" : "redis://") + node;
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
