package io.pixquota.testing;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RedisBinary;
import io.pixquota.harness.RespConnection;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The one Redis server that all tests of a JVM share, chosen once, in this order:
 * <ol>
 *   <li>{@code REDIS_URL} (environment variable or system property), if set;</li>
 *   <li>a Testcontainers {@code redis:7} container, when a Docker engine answers;</li>
 *   <li>a private {@code redis-server} on a free port: the {@link RedisBinary} this JVM chose (the PATH's, else
 *       the Redis 6.2 shipped in {@code com.github.codemonstur:embedded-redis}).</li>
 * </ol>
 * The choice is logged once. Servers this class starts are stopped when the JVM exits.
 */
public final class SharedRedis {
  private static final Logger LOG = LoggerFactory.getLogger(SharedRedis.class);

  /** Where the shared server came from. */
  public enum Source { REDIS_URL, TESTCONTAINERS, EMBEDDED }

  /** The chosen server: its URI ({@code redis://host:port}) and where it came from. */
  public record Choice(URI uri, Source source) {
    public String host() {
      return uri.getHost();
    }

    public int port() {
      return uri.getPort();
    }
  }

  private static volatile Choice choice;

  private SharedRedis() {}

  /** The shared server, started on first use. */
  public static Choice get() {
    Choice c = choice;
    if (c == null) {
      synchronized (SharedRedis.class) {
        c = choice;
        if (c == null) {
          c = choose();
          choice = c;
          LOG.info("Tests use Redis {} at {} (source: {}); private servers run {}", versionOf(c), redact(c.uri()),
              c.source(), RedisBinary.get());
        }
      }
    }
    return c;
  }

  private static Choice choose() {
    String url = System.getProperty("REDIS_URL", System.getenv("REDIS_URL"));
    if (url != null && !url.isBlank()) {
      return new Choice(URI.create(url.trim()), Source.REDIS_URL);
    }
    if (dockerAnswers()) {
      GenericContainer<?> redis = new GenericContainer<>(DockerImageName.parse("redis:7")).withExposedPorts(6379);
      redis.start();
      Runtime.getRuntime().addShutdownHook(new Thread(redis::stop, "stop-redis-container"));
      return new Choice(URI.create("redis://" + redis.getHost() + ":" + redis.getMappedPort(6379)),
          Source.TESTCONTAINERS);
    }
    return startEmbedded();
  }

  private static boolean dockerAnswers() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static Choice startEmbedded() {
    PrivateRedisServer server = PrivateRedisServer.start();
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "stop-private-redis"));
    return new Choice(server.uri(), Source.EMBEDDED);
  }

  /** What the server says of its version ({@code INFO server}'s {@code redis_version}), or "unknown". */
  static String versionOf(Choice c) {
    try (RespConnection conn = RespConnection.open(c.host(), c.port())) {
      Object info = conn.call("INFO", "server");
      return String.valueOf(info).lines().filter(l -> l.startsWith("redis_version:"))
          .map(l -> l.substring("redis_version:".length()).strip()).findFirst().orElse("unknown");
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** The URI without user info, fit for a log line. */
  static String redact(URI uri) {
    return uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort();
  }
}
