package io.pixquota.testing;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A private {@code redis-server} whose wall clock the test sets: its {@code TIME}, and so a script's idea of now,
 * and its key expiry follow {@link #setMicros(long)} and nothing else. Built on a small C library loaded with
 * {@code LD_PRELOAD} ({@code fakeclock.c}, compiled once per JVM with the machine's {@code cc}); Redis's own timers
 * keep the real monotonic clock. Linux only.
 *
 * <pre>{@code
 * try (FakeClockRedis redis = FakeClockRedis.start(1_000_000_000L)) { // TIME = 1000 s after the epoch
 *   redis.setMicros(1_000_500_000L);                                 // TIME = 1000.5 s, at once
 * }
 * }</pre>
 */
public final class FakeClockRedis implements AutoCloseable {
  private static Path library;

  private final Path clockFile;
  private final FileChannel clock;
  private final PrivateRedisServer server;

  private FakeClockRedis(long startMicros) throws IOException {
    clockFile = Files.createTempFile("fake-clock-", ".bin");
    clock = FileChannel.open(clockFile, StandardOpenOption.WRITE);
    setMicros(startMicros);
    server = PrivateRedisServer.start(Map.of("LD_PRELOAD", library().toString(),
        "FAKE_CLOCK_FILE", clockFile.toString()));
    try (RespConnection c = server.rawConnection()) {
      Object time = c.call("TIME");
      List<String> expected = List.of(Long.toString(startMicros / 1_000_000), Long.toString(startMicros % 1_000_000));
      if (!expected.equals(time)) {
        server.close();
        throw new IllegalStateException("redis-server ignores the fake clock (a statically linked binary?): TIME "
            + "answered " + time + ", expected " + expected);
      }
    }
  }

  /** Starts a server whose clock reads {@code startMicros} (microseconds since the epoch) until set again. */
  public static FakeClockRedis start(long startMicros) {
    try {
      return new FakeClockRedis(startMicros);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sets the server's wall clock; the next command reads it. */
  public synchronized void setMicros(long micros) {
    ByteBuffer value = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, micros);
    try {
      clock.write(value, 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public URI uri() {
    return server.uri();
  }

  public PrivateRedisServer server() {
    return server;
  }

  /** The shim, compiled on first use. */
  private static synchronized Path library() throws IOException {
    if (library == null) {
      Path dir = Files.createTempDirectory("fakeclock-");
      Path source = dir.resolve("fakeclock.c");
      try (InputStream in = FakeClockRedis.class.getResourceAsStream("fakeclock.c")) {
        Files.copy(in, source, StandardCopyOption.REPLACE_EXISTING);
      }
      Path lib = dir.resolve("fakeclock.so");
      Process cc = new ProcessBuilder(List.of("cc", "-shared", "-fPIC", "-O2", "-o", lib.toString(),
          source.toString(), "-ldl")).redirectErrorStream(true).start();
      String output = new String(cc.getInputStream().readAllBytes());
      try {
        if (!cc.waitFor(60, TimeUnit.SECONDS) || cc.exitValue() != 0) {
          throw new IOException("cc could not build the fake clock for redis-server: " + output);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while building the fake clock", e);
      }
      library = lib;
    }
    return library;
  }

  @Override
  public void close() {
    server.close();
    try {
      clock.close();
      Files.deleteIfExists(clockFile);
    } catch (IOException ignored) {
      // a temp file left behind
    }
  }
}
