package io.pixquota.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Free TCP ports on the loopback interface. */
public final class FreePorts {
  private FreePorts() {}

  /** A port that was free a moment ago (another process may still take it before the caller binds). */
  public static int pick() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on loopback", e);
    }
  }

  /**
   * A port for a Redis Cluster node: at most 55535, with the node's bus port ({@code port + 10000}) free too.
   */
  public static int pickForCluster() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(20_000, 55_536);
      if (free(port) && free(port + 10_000)) {
        return port;
      }
    }
    throw new IllegalStateException("no free pair of ports (port, port + 10000) on loopback below 55536");
  }

  private static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return socket.isBound();
    } catch (IOException taken) {
      return false;
    }
  }
}
