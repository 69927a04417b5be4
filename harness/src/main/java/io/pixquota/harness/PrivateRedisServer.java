package io.pixquota.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} process of one test's own, on a free loopback port, that the test may kill, pause (SIGSTOP)
 * and restart on the same port. Runs the {@link RedisBinary} this JVM chose (the PATH's {@code redis-server}, else
 * the Redis 6.2 shipped in {@code embedded-redis}). No persistence: a restart starts empty, like a Redis without AOF.
 * Each server has a working directory of its own (a replica's full sync writes {@code dump.rdb} there, which a
 * server started in a shared directory would load), emptied of {@code dump.rdb} on restart and deleted, with the
 * server's log, on {@link #close()} (a server that fails to start keeps its log, named in the exception).
 *
 * <pre>{@code
 * try (PrivateRedisServer redis = PrivateRedisServer.start()) {
 *   redis.pause();   // SIGSTOP: connections stay open, nothing answers
 *   redis.resume();  // SIGCONT
 *   redis.kill();    // SIGKILL
 *   redis.restart(); // same port, empty
 * }
 * }</pre>
 */
public final class PrivateRedisServer implements AutoCloseable {
  private final int port;
  private final Map<String, String> env;
  private final Path configFile;
  private final List<String> extraArgs;
  private final Path logFile;
  private final Path workDir;
  private Process process;

  private PrivateRedisServer(int port, Map<String, String> env, List<String> extraArgs) throws IOException {
    this(port, env, false, extraArgs);
  }

  private PrivateRedisServer(int port, Map<String, String> env, boolean withConfigFile, List<String> extraArgs)
      throws IOException {
    this.port = port;
    this.env = Map.copyOf(env);
    this.extraArgs = List.copyOf(extraArgs);
    this.logFile = Files.createTempFile("private-redis-" + port + "-", ".log");
    this.workDir = Files.createTempDirectory("private-redis-" + port + "-");
    this.configFile = withConfigFile ? workDir.resolve("redis.conf") : null;
  }

  /** Starts a server on a free port, with extra {@code redis-server} arguments such as {@code --requirepass x}. */
  public static PrivateRedisServer start(String... extraArgs) {
    return start(Map.of(), extraArgs);
  }

  /** Starts a server on a free port with these extra environment variables and {@code redis-server} arguments. */
  public static PrivateRedisServer start(Map<String, String> env, String... extraArgs) {
    try {
      PrivateRedisServer server = new PrivateRedisServer(FreePorts.pick(), env, List.of(extraArgs));
      server.launch();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts a server on this port (e.g. one a client was already told about while nothing listened there). */
  public static PrivateRedisServer startOn(int port, String... extraArgs) {
    try {
      PrivateRedisServer server = new PrivateRedisServer(port, Map.of(), List.of(extraArgs));
      server.launch();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Starts a server on {@code port} that reads a configuration file with this text first (a Sentinel's, which it
   * rewrites; kept in the server's own directory), with these arguments after it (e.g. {@code --sentinel}).
   */
  public static PrivateRedisServer startWithConfig(int port, String configText, String... extraArgs) {
    try {
      PrivateRedisServer server = new PrivateRedisServer(port, Map.of(), true, List.of(extraArgs));
      Files.writeString(server.configFile, configText);
      server.launch();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return port;
  }

  public URI uri() {
    return URI.create("redis://127.0.0.1:" + port);
  }

  public long pid() {
    return process.pid();
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL: the process dies at once, with no chance to answer anything. */
  public synchronized void kill() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** SIGSTOP: the process keeps its sockets but answers nothing until {@link #resume()}. */
  public synchronized void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public synchronized void resume() {
    signal("CONT");
  }

  /** Kills the process if alive and starts a new, empty one on the same port. */
  public synchronized void restart() {
    kill();
    try {
      Files.deleteIfExists(workDir.resolve("dump.rdb"));
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A raw connection for administration (closed by the caller). */
  public RespConnection rawConnection() {
    return RespConnection.open("127.0.0.1", port);
  }
  /** The EVAL and EVALSHA calls this server has run for its clients: {@link RespConnection#scriptCalls()}. */
  public long scriptCalls() {
    try (RespConnection c = rawConnection()) {
      return c.scriptCalls();
    }
  }


  private void launch() throws IOException {
    List<String> command = new ArrayList<>(List.of(RedisBinary.get().path()));
    if (configFile != null) {
      command.add(configFile.toString());
    }
    command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "no", "--dir", workDir.toString()));
    command.addAll(extraArgs);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    builder.environment().putAll(env);
    process = builder.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try (RespConnection c = RespConnection.open("127.0.0.1", port)) {
        Object pong = c.call("PING");
        if ("PONG".equals(pong) || isAuthError(pong)) {
          return;
        }
      } catch (RuntimeException e) {
        if (isAuthError(e.getMessage())) {
          return;
        }
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IOException("redis-server did not start on port " + port + "; log: " + logFile, e);
        }
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while starting redis-server", e);
      }
    }
  }

  private static boolean isAuthError(Object reply) {
    return reply instanceof String s && s.contains("NOAUTH");
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
      if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling redis-server", e);
    }
  }

  @Override
  public synchronized void close() {
    if (process != null && process.isAlive()) {
      signal("CONT");
    }
    kill();
    try (Stream<Path> files = Files.walk(workDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      Files.deleteIfExists(logFile);
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + workDir + " or " + logFile, e);
    }
  }
}
