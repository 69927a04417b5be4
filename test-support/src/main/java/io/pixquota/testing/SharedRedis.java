package io.pixquota.testing;

import io.pixquota.harness.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;
import redis.embedded.RedisServer;

/**
 * The one Redis server that all tests of a JVM share, chosen once, in this order:
 * <ol>
 *   <li>{@code REDIS_URL} (environment variable or system property), if set;</li>
 *   <li>a Testcontainers {@code redis:7} container, when a Docker engine answers;</li>
 *   <li>the Redis binary shipped in {@code com.github.codemonstur:embedded-redis}, started on a free port.</li>
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
          LOG.info("Tests use Redis at {} (source: {})", redact(c.uri()), c.source());
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
    int port = FreePorts.pick();
    try {
      RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
          .setting("appendonly no").setting("save \"\"").build();
      server.start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          server.stop();
        } catch (IOException ignored) {
          // The JVM is exiting; the child process dies with it.
        }
      }, "stop-embedded-redis"));
      return new Choice(URI.create("redis://127.0.0.1:" + port), Source.EMBEDDED);
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded Redis on port " + port, e);
    }
  }

  /** The URI without user info, fit for a log line. */
  static String redact(URI uri) {
    return uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort();
  }
}
