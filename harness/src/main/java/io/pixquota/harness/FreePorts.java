package io.pixquota.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

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
}
