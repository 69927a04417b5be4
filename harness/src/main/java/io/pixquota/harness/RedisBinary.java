package io.pixquota.harness;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import redis.embedded.core.ExecutableProvider;

/**
 * Which {@code redis-server} binary the private servers run, chosen once per JVM:
 * <ol>
 *   <li>{@code PIXQUOTA_REDIS_SERVER} (environment variable or system property): {@code embedded} for the binary
 *       shipped in {@code embedded-redis} (Redis 6.2), {@code path} for the one on the PATH, or a file;</li>
 *   <li>otherwise {@code redis-server} from the PATH when it can be run;</li>
 *   <li>otherwise the embedded binary, so a machine with only a JDK, Maven and a C compiler runs every test.</li>
 * </ol>
 * {@code .ci/run} runs the whole suite on the PATH's Redis 7 and the Redis-facing modules again with
 * {@code PIXQUOTA_REDIS_SERVER=embedded}.
 */
public final class RedisBinary {
  /** The variable that picks the binary. */
  public static final String VARIABLE = "PIXQUOTA_REDIS_SERVER";

  private static final Pattern VERSION = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)");
  private static volatile RedisBinary chosen;

  private final String path;
  private final String version;

  private RedisBinary(String path, String version) {
    this.path = path;
    this.version = version;
  }

  /** The binary for this JVM. */
  public static RedisBinary get() {
    RedisBinary b = chosen;
    if (b == null) {
      synchronized (RedisBinary.class) {
        b = chosen;
        if (b == null) {
          String path = locate(System.getProperty(VARIABLE, System.getenv(VARIABLE)));
          b = new RedisBinary(path, versionOf(path));
          chosen = b;
        }
      }
    }
    return b;
  }

  /** The executable's absolute path. */
  public String path() {
    return path;
  }

  /** What {@code redis-server --version} says, e.g. {@code 7.0.15}. */
  public String version() {
    return version;
  }

  /** The major version, e.g. 6 or 7. */
  public int major() {
    return Integer.parseInt(version.substring(0, version.indexOf('.')));
  }

  static String locate(String choice) {
    if (choice == null || choice.isBlank()) {
      String onPath = onPath();
      return onPath != null ? onPath : embedded();
    }
    String c = choice.trim();
    if (c.equals("embedded")) {
      return embedded();
    }
    if (c.equals("path")) {
      String onPath = onPath();
      if (onPath == null) {
        throw new IllegalStateException(VARIABLE + "=path, but no runnable redis-server is on the PATH");
      }
      return onPath;
    }
    File file = new File(c);
    if (!file.canExecute()) {
      throw new IllegalStateException(VARIABLE + " must be 'embedded', 'path' or an executable redis-server, but "
          + "was '" + c + "'");
    }
    return file.getAbsolutePath();
  }

  private static String onPath() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File candidate = new File(dir, "redis-server");
      if (candidate.isFile() && candidate.canExecute()) {
        return candidate.getAbsolutePath();
      }
    }
    return null;
  }

  private static String embedded() {
    try {
      return ExecutableProvider.newJarResourceProvider().get().getAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("could not unpack the redis-server of embedded-redis", e);
    }
  }

  private static String versionOf(String path) {
    try {
      Process p = new ProcessBuilder(path, "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(path + " --version did not answer within 10 s");
      }
      Matcher m = VERSION.matcher(out);
      if (!m.find()) {
        throw new IllegalStateException(path + " --version printed no version: " + out.strip());
      }
      return m.group(1);
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + path, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking " + path + " for its version", e);
    }
  }

  @Override
  public String toString() {
    return "redis-server " + version + " (" + path + ")";
  }
}
