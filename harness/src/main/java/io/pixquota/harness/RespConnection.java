package io.pixquota.harness;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare RESP2 connection for test administration (SCRIPT FLUSH, DEBUG SLEEP, CLIENT PAUSE, MONITOR, INFO), so that
 * tests do not depend on the client under test to set up or inspect the server.
 */
public final class RespConnection implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RespConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects with a 2 s connect timeout and a 10 s read timeout. */
  public static RespConnection open(String host, int port) {
    try {
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress(host, port), 2000);
      socket.setSoTimeout(10_000);
      return new RespConnection(socket);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot connect to Redis at " + host + ":" + port, e);
    }
  }

  /** Sets how long {@link #read()} waits for a reply before failing with a {@code SocketTimeoutException}. */
  public RespConnection readTimeout(int millis) {
    try {
      socket.setSoTimeout(millis);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sends one command and reads its reply: String, Long, List, or null; an error reply throws. */
  public Object call(String... args) {
    send(args);
    return read();
  }

  /** Sends one command without reading its reply (for MONITOR, followed by {@link #read()}). */
  public void send(String... args) {
    try {
      StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
      for (String arg : args) {
        byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
        sb.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
      }
      out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one reply. */
  public Object read() {
    try {
      int type = in.read();
      String line = readLine();
      switch (type) {
        case '+':
          return line;
        case '-':
          throw new IllegalStateException("Redis error: " + line);
        case ':':
          return Long.parseLong(line);
        case '$': {
          int len = Integer.parseInt(line);
          if (len < 0) {
            return null;
          }
          byte[] data = in.readNBytes(len);
          readLine();
          return new String(data, StandardCharsets.UTF_8);
        }
        case '*': {
          int n = Integer.parseInt(line);
          if (n < 0) {
            return null;
          }
          List<Object> items = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            items.add(read());
          }
          return items;
        }
        default:
          throw new IllegalStateException("unexpected RESP type " + type);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\r') {
        in.read();
        break;
      }
      buf.write(b);
    }
    if (b == -1) {
      throw new IOException("connection closed by Redis");
    }
    return buf.toString(StandardCharsets.UTF_8);
  }

  /**
   * The EVAL and EVALSHA calls the server has run for its clients since it started ({@code INFO commandstats}: Redis's
   * own count, which leaves a script's inner commands apart and costs nothing while they run, unlike MONITOR).
   */
  public long scriptCalls() {
    return scriptStat("calls=");
  }

  /** The microseconds Redis spent running EVAL and EVALSHA since it started ({@code INFO commandstats}). */
  public long scriptMicros() {
    return scriptStat("usec=");
  }

  private long scriptStat(String stat) {
    long n = 0;
    for (String line : String.valueOf(call("INFO", "commandstats")).split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        String value = line.substring(line.indexOf(stat) + stat.length()); // the first: not rejected_calls= ...
        n += Long.parseLong(value.substring(0, value.indexOf(',')));
      }
    }
    return n;
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // nothing left to release
    }
  }
}
