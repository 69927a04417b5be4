package io.pixquota.harness;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the commands clients send to Redis after a given time, with MONITOR: lines from a client address, not from
 * {@code lua} (commands a script runs inside Redis are not round trips), nor from the connections it was told to
 * ignore (a replica's link to its master, which replays the master's writes; Sentinels' health checks). Its own
 * connection sends only MONITOR.
 */
public final class CommandCounter implements AutoCloseable {
  private final Socket socket;
  private final AtomicLong commands = new AtomicLong();
  private final AtomicLong evalCommands = new AtomicLong();
  private final AtomicLong pingCommands = new AtomicLong();
  private final double sinceEpochSeconds;
  private final Set<String> ignoredSources;
  private final String where;
  private volatile boolean closed;
  private volatile boolean ended;

  /** Starts counting the commands Redis receives from clients at or after {@code sinceEpochMs}. */
  public CommandCounter(URI redis, long sinceEpochMs) throws IOException {
    this(redis, sinceEpochMs, Set.of());
  }

  /**
   * Starts counting the commands Redis receives at or after {@code sinceEpochMs} from clients other than those at
   * {@code ignoredSources} ({@code host:port} as MONITOR and CLIENT LIST show them).
   */
  public CommandCounter(URI redis, long sinceEpochMs, Set<String> ignoredSources) throws IOException {
    this.sinceEpochSeconds = sinceEpochMs / 1000.0;
    this.ignoredSources = Set.copyOf(ignoredSources);
    this.where = redis.getHost() + ":" + (redis.getPort() > 0 ? redis.getPort() : 6379);
    socket = new Socket(redis.getHost(), redis.getPort() > 0 ? redis.getPort() : 6379);
    OutputStream out = socket.getOutputStream();
    String auth = redis.getUserInfo();
    if (auth != null && auth.contains(":")) {
      String password = auth.substring(auth.indexOf(':') + 1);
      out.write(("*2\r\n$4\r\nAUTH\r\n$" + password.getBytes(StandardCharsets.UTF_8).length + "\r\n" + password
          + "\r\n").getBytes(StandardCharsets.UTF_8));
    }
    out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    Thread reader = new Thread(this::read, "redis-monitor");
    reader.setDaemon(true);
    reader.start();
  }

  private void read() {
    try (InputStream in = new BufferedInputStream(socket.getInputStream())) {
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int b;
      while (!closed && (b = in.read()) != -1) {
        if (b != '\n') {
          line.write(b);
          continue;
        }
        String s = line.toString(StandardCharsets.UTF_8);
        line.reset();
        if (s.startsWith("+") && !s.startsWith("+OK") && !s.contains(" lua] ") && !ignored(s)) {
          int space = s.indexOf(' ');
          try {
            if (space > 1 && Double.parseDouble(s.substring(1, space)) >= sinceEpochSeconds) {
              commands.incrementAndGet();
              String lower = s.toLowerCase(Locale.ROOT);
              if (lower.contains("] \"evalsha\"") || lower.contains("] \"eval\"")) {
                evalCommands.incrementAndGet();
              } else if (lower.contains("] \"ping\"")) {
                pingCommands.incrementAndGet();
              }
            }
          } catch (NumberFormatException ignored) {
            // not a MONITOR line
          }
        }
      }
    } catch (IOException e) {
      // closed, or the node went away
    } finally {
      ended = !closed; // the node died or dropped the connection: the count stops there
    }
  }

  /** Whether the node ended the connection before {@link #close()}: the count is what was seen until then. */
  public boolean ended() {
    return ended;
  }

  /** Whether a MONITOR line ({@code +<time> [<db> <host:port>] "CMD" ...}) comes from an ignored source. */
  private boolean ignored(String line) {
    int open = line.indexOf('[');
    int close = line.indexOf(']', open + 1);
    if (ignoredSources.isEmpty() || open < 0 || close < 0) {
      return false;
    }
    String[] dbAndSource = line.substring(open + 1, close).split(" ");
    return dbAndSource.length == 2 && ignoredSources.contains(dbAndSource[1]);
  }

  /** Commands clients sent, scripts' inner commands excluded. */
  public long commands() {
    return commands.get();
  }

  /** EVAL and EVALSHA among them: a bucket's own round trips. */
  public long evalCommands() {
    return evalCommands.get();
  }

  /** PINGs among them: a client's keep-alive checks of idle connections (Redisson's every 30 s by default). */
  public long pingCommands() {
    return pingCommands.get();
  }

  /** Lets MONITOR catch up: waits until the count stops moving for 150 ms. */
  public void settle() throws InterruptedException {
    long last = -1;
    while (last != commands.get()) {
      last = commands.get();
      Thread.sleep(150);
    }
  }

  /** The node's {@code host:port}, never its password. */
  @Override
  public String toString() {
    return where;
  }

  @Override
  public void close() throws IOException {
    closed = true;
    socket.close();
  }
}
