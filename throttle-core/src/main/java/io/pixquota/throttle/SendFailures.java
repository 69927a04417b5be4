package io.pixquota.throttle;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.UnknownHostException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Whether a call that failed in its send may have reached the provider. A request that has been sent is at the
 * provider until the provider says otherwise: a timeout, a cancel or a broken connection after the send cannot tell
 * whether the provider is still working on it, so its permit stays held. Only a failure known to come before any
 * byte of the request was written (no address, no connection, no TLS session) says it never arrived.
 */
final class SendFailures {
  private SendFailures() {}

  /** True when {@code failure}, or a cause of it, is one that happens before any byte of the request is written. */
  static boolean nothingSent(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof NoRouteToHostException
          || t instanceof PortUnreachableException || t instanceof SSLHandshakeException) {
        return true;
      }
    }
    return false;
  }
}
