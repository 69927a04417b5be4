package io.pixquota.throttle.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Whether the master a group of Sentinels names can be reached now, asked before a Redisson client of that group
 * connects for the first time. Redisson (3.52) initializes a lazily started Sentinel client once: if that first
 * connect meets the master dead (killed, and not yet replaced), the client fails every later command, even once a
 * replica is promoted. Asked first, the client connects only once the master the Sentinels name answers; until then
 * its first commands fail as Redis unreachable, and their callers ask again. Plain sockets, no TLS (with TLS it does
 * not judge: the client connects as it would). Threadsafe.
 */
public final class SentinelProbe implements BooleanSupplier {
  private static final int TIMEOUT_MILLIS = 300;

  private final List<InetSocketAddress> sentinels;
  private final String masterName;
  private final String username;
  private final String password;

  /** @param sentinels each "host:port" */
  public SentinelProbe(List<String> sentinels, String masterName, String username, String password) {
    this.sentinels = new ArrayList<>();
    for (String s : sentinels) {
      int colon = s.lastIndexOf(':');
      this.sentinels.add(InetSocketAddress.createUnresolved(s.substring(0, colon).replace("[", "").replace("]", ""),
          Integer.parseInt(s.substring(colon + 1))));
    }
    this.masterName = masterName;
    this.username = username;
    this.password = password;
  }

  /**
   * True when a Sentinel names a master that accepts a connection, or when none can tell (one that asks for a password
   * it does not take): the client may connect; false while the master named is unreachable, or no Sentinel answers.
   */
  @Override
  public boolean getAsBoolean() {
    for (InetSocketAddress sentinel : sentinels) {
      String[] master;
      try {
        master = masterOf(sentinel);
      } catch (IOException e) {
        continue; // this Sentinel is away: ask the next
      }
      if (master == null) {
        return true; // it does not tell (a password it wants, no such master): the client finds out itself
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(master[0], Integer.parseInt(master[1])), TIMEOUT_MILLIS);
        return true;
      } catch (IOException | RuntimeException e) {
        return false;
      }
    }
    return false;
  }

  /** The master's host and port as this Sentinel names it; null when it answers something else. */
  private String[] masterOf(InetSocketAddress sentinel) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(sentinel.getHostString(), sentinel.getPort()), TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      if (password != null) {
        out.write(command(username == null ? new String[] {"AUTH", password}
            : new String[] {"AUTH", username, password}));
        if (!line(in).startsWith("+")) {
          return null;
        }
      }
      out.write(command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName));
      String head = line(in);
      if (!head.equals("*2")) {
        return null;
      }
      return new String[] {bulk(in), bulk(in)};
    }
  }

  private static byte[] command(String... args) {
    StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
    for (String a : args) {
      sb.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String bulk(InputStream in) throws IOException {
    String head = line(in);
    if (!head.startsWith("$")) {
      throw new IOException("not a bulk string: " + head);
    }
    String value = line(in);
    return value;
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    int b;
    while ((b = in.read()) != -1 && b != '\n') {
      if (b != '\r') {
        sb.append((char) b);
      }
      if (sb.length() > 512) {
        throw new IOException("a line too long");
      }
    }
    if (b == -1) {
      throw new IOException("closed");
    }
    return sb.toString();
  }
}
