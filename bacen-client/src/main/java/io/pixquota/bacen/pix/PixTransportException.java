package io.pixquota.bacen.pix;

/** No usable answer reached us: connection refused or reset, timeout, I/O error; after any retries. */
public final class PixTransportException extends PixException {
  private static final long serialVersionUID = 1L;

  PixTransportException(String message, Throwable cause) {
    super(message, 0, null, null, cause);
  }
}
