package io.pixquota.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts this machine's ESTABLISHED TCP connections to one port (the provider's), as {@code ss} would, from Linux's
 * {@code /proc/net/tcp} and {@code tcp6}, every {@code periodMillis} on a daemon thread, and keeps the most seen at
 * once. Only clients connect to that port, so the count is the connections the clients hold, not the server's side.
 * Where {@code /proc/net/tcp} is missing (not Linux), it reports -1.
 */
final class ConnectionSampler implements AutoCloseable {
  private static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));
  private final String remotePort;
  private final AtomicInteger most = new AtomicInteger();
  private final Thread thread;
  private volatile boolean stop;

  private ConnectionSampler(int port, long periodMillis) {
    this.remotePort = String.format(Locale.ROOT, ":%04X", port);
    this.thread = new Thread(() -> {
      while (!stop) {
        most.accumulateAndGet(now(), Math::max);
        try {
          Thread.sleep(periodMillis);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "connection-sampler");
    thread.setDaemon(true);
  }

  static ConnectionSampler start(int port, long periodMillis) {
    ConnectionSampler s = new ConnectionSampler(port, periodMillis);
    s.thread.start();
    return s;
  }

  /** Connections to the port now; -1 without {@code /proc/net/tcp}. */
  int now() {
    return established(remotePort, null);
  }

  /**
   * ESTABLISHED connections to the remote port {@code :XXXX} (hex, as the kernel writes it), of the sockets whose
   * inodes are in {@code inodes} (null: every socket); -1 without {@code /proc/net/tcp}.
   */
  static int established(String remotePort, java.util.Set<String> inodes) {
    int count = 0;
    boolean read = false;
    for (Path table : TABLES) {
      try {
        for (String line : Files.readAllLines(table)) {
          String[] f = line.trim().split("\\s+");
          // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode: 01 is ESTABLISHED
          if (f.length > 9 && f[2].endsWith(remotePort) && f[3].equals("01")
              && (inodes == null || inodes.contains(f[9]))) {
            count++;
          }
        }
        read = true;
      } catch (IOException e) {
        // no such table (no IPv6, or not Linux)
      }
    }
    return read ? count : -1;
  }

  /** The most seen at once since the last reset. */
  int most() {
    return most.get();
  }

  void reset() {
    most.set(now());
  }

  @Override
  public void close() {
    stop = true;
    thread.interrupt();
  }
}
