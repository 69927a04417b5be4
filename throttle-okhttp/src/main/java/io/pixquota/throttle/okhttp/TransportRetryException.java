package io.pixquota.throttle.okhttp;

import java.io.IOException;

/**
 * Thrown by the network interceptor when OkHttp retries a call already sent on its slot (the connection failed under
 * it: one the provider had closed while it sat in the pool). The retry needs a slot of its own, and booking it there
 * would wait holding the retry's connection, idle, for as long as the line is (a gateway closes it meanwhile, and the
 * retry fails on it). The {@link ThrottledCall} books it again holding none, or fails with the failure OkHttp retried
 * ({@link #retried}). OkHttp does not retry this one: no exchange of its own failed.
 */
final class TransportRetryException extends IOException {
  private static final long serialVersionUID = 1L;

  TransportRetryException() {
    super("OkHttp's retry of a call sent on a connection that failed: it books its slot again, holding no connection");
  }

  /** The failure OkHttp retried (it adds it to this one as suppressed); this one when there is none. */
  IOException retried() {
    for (Throwable t : getSuppressed()) {
      if (t instanceof IOException io) {
        return io;
      }
    }
    return this;
  }
}
