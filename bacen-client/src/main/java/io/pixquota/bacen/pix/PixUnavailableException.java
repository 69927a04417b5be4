package io.pixquota.bacen.pix;

import java.time.Duration;

/** The provider failed or is unavailable (5xx), after any retries. */
public final class PixUnavailableException extends PixException {
  private static final long serialVersionUID = 1L;

  PixUnavailableException(String message, int status, String problemType, String correlationId, Duration retryAfter,
      Throwable cause) {
    super(message, status, problemType, correlationId, retryAfter, cause);
  }
}
