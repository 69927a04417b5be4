package io.pixquota.throttle.redis;

import io.pixquota.throttle.redis.RedisAddress.Node;
import io.pixquota.throttle.redis.RedisAddress.Topology;
import io.pixquota.throttle.redis.internal.RedissonScripts;
import io.pixquota.throttle.redis.internal.SentinelProbe;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;

/** Builds {@link RedisAddress#connect}'s Redisson clients: the only class that loads Redisson's configuration. */
final class RedissonClients {
  private static final int TOPOLOGY_SCAN_MILLIS = 1000;

  private RedissonClients() {}

  static RedissonClient connect(RedisAddress address, Duration timeout, int minimumIdle) {
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
    BaseConfig<?> base = switch (address.topology()) {
      case SINGLE -> config.useSingleServer().setAddress(address(address, address.nodes().get(0)))
          .setDatabase(address.database()).setConnectionMinimumIdleSize(minimumIdle).setConnectionPoolSize(pool);
      case SENTINEL -> config.useSentinelServers().setMasterName(address.masterName())
          .setDatabase(address.database()).addSentinelAddress(addresses(address)).setCheckSentinelsList(false)
          .setScanInterval(TOPOLOGY_SCAN_MILLIS).setMasterConnectionMinimumIdleSize(minimumIdle)
          .setMasterConnectionPoolSize(pool);
      case CLUSTER -> config.useClusterServers().addNodeAddress(addresses(address))
          .setScanInterval(TOPOLOGY_SCAN_MILLIS).setMasterConnectionMinimumIdleSize(minimumIdle)
          .setMasterConnectionPoolSize(pool);
    };
    base.setUsername(address.username()).setPassword(address.password()).setTimeout(millis).setRetryAttempts(0)
        .setConnectTimeout(Math.max(1000, millis));
    RedissonClient client = Redisson.create(config);
    if (address.topology() == Topology.SENTINEL && !address.tls()) { // its first connect only to a master that answers
      RedissonScripts.of(client).guard().readyWhen(new SentinelProbe(address.nodes().stream().map(Node::toString)
          .toList(), address.masterName(), address.username(), address.password()));
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

  private static String[] addresses(RedisAddress address) {
    return address.nodes().stream().map(n -> address(address, n)).toArray(String[]::new);
  }

  private static String address(RedisAddress address, Node node) {
    return (address.tls() ? "rediss://" : "redis://") + node;
  }
}
