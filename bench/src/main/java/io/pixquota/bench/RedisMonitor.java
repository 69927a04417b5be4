package io.pixquota.bench;

import io.pixquota.testing.RespConnection;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the commands that clients send to a Redis server, with MONITOR: lines whose source is a client address, not
 * {@code lua} (commands a script runs inside the server are not round trips).
 */
final class RedisMonitor implements AutoCloseable {
  private final RespConnection connection;
  private final AtomicLong clientCommands = new AtomicLong();
  private final AtomicLong scriptCommands = new AtomicLong();
  private final AtomicLong evalCommands = new AtomicLong();
  private final Thread reader;
  private volatile boolean closed;

  RedisMonitor(URI redis) {
    connection = RespConnection.open(redis.getHost(), redis.getPort()).readTimeout(0);
    connection.call("MONITOR");
    reader = new Thread(this::readLoop, "redis-monitor");
    reader.setDaemon(true);
    reader.start();
  }

  private void readLoop() {
    while (!closed) {
      Object line;
      try {
        line = connection.read();
      } catch (RuntimeException e) {
        return;
      }
      if (line instanceof String s) {
        if (s.contains(" lua] ")) {
          scriptCommands.incrementAndGet();
        } else {
          clientCommands.incrementAndGet();
          String lower = s.toLowerCase(java.util.Locale.ROOT);
          if (lower.contains("] \"evalsha\"") || lower.contains("] \"eval\"")) {
            evalCommands.incrementAndGet();
          }
        }
      }
    }
  }

  long clientCommands() {
    return clientCommands.get();
  }

  /** EVAL and EVALSHA commands sent by clients: the bucket's own round trips. */
  long evalCommands() {
    return evalCommands.get();
  }

  long scriptCommands() {
    return scriptCommands.get();
  }

  /** Lets MONITOR catch up: waits until the count stops moving for 200 ms. */
  void settle() throws InterruptedException {
    long last = -1;
    while (last != clientCommands.get()) {
      last = clientCommands.get();
      Thread.sleep(200);
    }
  }

  @Override
  public void close() {
    closed = true;
    connection.close();
  }
}
