package io.pixquota.bacen.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A Redis address, {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...} (TLS), checked when it is
 * read, and the one place the SDK builds a {@link RedissonClient} from it. {@link #toString()} hides the password.
 *
 * @param tls      whether the scheme is {@code rediss}
 * @param host     the host
 * @param port     the port, 6379 when not given
 * @param username the ACL user, or null
 * @param password the password, or null
 * @param database the database index, 0 when not given
 */
public record RedisUrl(boolean tls, String host, int port, String username, String password, int database) {
  /**
   * Reads a URL.
   *
   * @throws IllegalArgumentException naming what is wrong, never showing the password
   */
  public static RedisUrl parse(String url) {
    Checks.notBlank("redisUrl", url);
    URI uri;
    try {
      uri = new URI(url.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("redisUrl is not a URL: '" + redacted(url) + "'");
    }
    if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
      throw new IllegalArgumentException("redisUrl must start with redis:// or rediss://, but was '" + redacted(url)
          + "'");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("redisUrl has no host: '" + redacted(url) + "'");
    }
    String user = null;
    String password = null;
    if (uri.getUserInfo() != null) { // redis://user:password@host or redis://:password@host (AUTH)
      int colon = uri.getUserInfo().indexOf(':');
      user = colon < 0 ? null : uri.getUserInfo().substring(0, colon);
      password = colon < 0 ? uri.getUserInfo() : uri.getUserInfo().substring(colon + 1);
    }
    return new RedisUrl("rediss".equals(uri.getScheme()), uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 6379,
        user == null || user.isEmpty() ? null : user, password, database(uri.getPath(), url));
  }

  private static int database(String path, String url) {
    if (path == null || path.isEmpty() || path.equals("/")) {
      return 0;
    }
    String db = path.substring(1);
    if (!db.matches("[0-9]{1,5}")) {
      throw new IllegalArgumentException("redisUrl's database must be a whole number >= 0, but was '" + db + "' in '"
          + redacted(url) + "'");
    }
    return Integer.parseInt(db);
  }

  /**
   * A Redisson client for this address. Lazy: a client built while Redis is down fails closed per call and recovers
   * by itself, instead of failing to start. No Redisson retries: a retried script would book a second slot, and
   * {@code timeout} already bounds every call.
   */
  public RedissonClient newRedisson(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout cannot be null");
    Config config = new Config();
    config.setLazyInitialization(true);
    config.useSingleServer()
        .setAddress((tls ? "rediss://" : "redis://") + host + ":" + port)
        .setDatabase(database).setUsername(username).setPassword(password)
        .setTimeout((int) timeout.toMillis()).setRetryAttempts(0)
        .setConnectionMinimumIdleSize(4).setConnectionPoolSize(64)
        .setConnectTimeout((int) Math.max(1000, timeout.toMillis()));
    return Redisson.create(config);
  }

  /** The address without its password. */
  @Override
  public String toString() {
    return (tls ? "rediss://" : "redis://") + (password != null || username != null ? "****@" : "") + host + ":" + port
        + (database != 0 ? "/" + database : "");
  }

  /** A URL, well-formed or not, without anything that could be its password. */
  public static String redacted(String url) {
    if (url == null) {
      return "null";
    }
    int at = url.lastIndexOf('@');
    int scheme = url.indexOf("://");
    return at > scheme && scheme >= 0 ? url.substring(0, scheme + 3) + "****" + url.substring(at) : url;
  }
}
