package io.pixquota.mock;

import java.util.Arrays;
import java.util.Locale;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;

/**
 * The mock's reading of a Redis address, in the syntax every pixquota component takes ({@code redis://},
 * {@code redis-sentinel://host:port,.../MASTER}, {@code redis-cluster://host:port,...}, {@code rediss} variants for
 * TLS). Written here rather than taken from the SDK: the judge shares no code with what it judges.
 */
final class RedisTopology {
  private RedisTopology() {}

  /**
   * A Redisson client for {@code url}: 1 s timeout, no retries, lazy.
   *
   * @throws IllegalArgumentException naming what is wrong, never the password
   */
  static RedissonClient connect(String url) {
    int schemeEnd = url.indexOf("://");
    String scheme = schemeEnd < 0 ? "" : url.substring(0, schemeEnd).toLowerCase(Locale.ROOT);
    String rest = schemeEnd < 0 ? "" : url.substring(schemeEnd + 3);
    int at = rest.lastIndexOf('@');
    String userInfo = at < 0 ? null : rest.substring(0, at);
    rest = rest.substring(at + 1);
    int slash = rest.indexOf('/');
    String[] hosts = (slash < 0 ? rest : rest.substring(0, slash)).split(",");
    String path = slash < 0 ? "" : rest.substring(slash + 1);
    if (Arrays.stream(hosts).anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("--redis-url has an empty host: '" + redacted(url) + "'");
    }
    String prefix = scheme.startsWith("rediss") ? "rediss://" : "redis://";
    String[] addresses = Arrays.stream(hosts).map(h -> prefix + (h.contains(":") ? h : h + ":6379"))
        .toArray(String[]::new);
    Config config = new Config();
    config.setLazyInitialization(true);
    BaseConfig<?> base = switch (scheme) {
      case "redis", "rediss" -> {
        if (hosts.length > 1) {
          throw new IllegalArgumentException("--redis-url names several hosts; use redis-sentinel:// or "
              + "redis-cluster://: '" + redacted(url) + "'");
        }
        yield config.useSingleServer().setAddress(addresses[0]).setDatabase(database(path, url))
            .setConnectionMinimumIdleSize(2).setConnectionPoolSize(32);
      }
      case "redis-sentinel", "rediss-sentinel" -> {
        String[] parts = path.split("/");
        if (parts[0].isBlank()) {
          throw new IllegalArgumentException("--redis-url has no master name: '" + redacted(url) + "'");
        }
        yield config.useSentinelServers().setMasterName(parts[0]).addSentinelAddress(addresses)
            .setCheckSentinelsList(false).setDatabase(parts.length > 1 ? database(parts[1], url) : 0);
      }
      case "redis-cluster", "rediss-cluster" -> config.useClusterServers().addNodeAddress(addresses);
      default -> throw new IllegalArgumentException("--redis-url must start with redis://, rediss://, "
          + "redis-sentinel:// or redis-cluster://: '" + redacted(url) + "'");
    };
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      base.setUsername(colon > 0 ? userInfo.substring(0, colon) : null)
          .setPassword(colon < 0 ? userInfo : userInfo.substring(colon + 1));
    }
    base.setTimeout(1000).setRetryAttempts(0);
    return Redisson.create(config);
  }

  private static int database(String path, String url) {
    if (path.isEmpty()) {
      return 0;
    }
    if (!path.matches("[0-9]{1,5}")) {
      throw new IllegalArgumentException("--redis-url's database must be a whole number: '" + redacted(url) + "'");
    }
    return Integer.parseInt(path);
  }

  private static String redacted(String url) {
    int at = url.lastIndexOf('@');
    int scheme = url.indexOf("://");
    return at > scheme && scheme >= 0 ? url.substring(0, scheme + 3) + "****" + url.substring(at) : url;
  }
}
