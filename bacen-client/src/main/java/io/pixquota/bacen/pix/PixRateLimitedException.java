package io.pixquota.bacen.pix;

import java.time.Duration;

/**
 * The provider answered 429, after any retries. With the shared bucket sized under the quota this should not happen.
 */
public final class PixRateLimitedException extends PixException {
  private static final long serialVersionUID = 1L;

  PixRateLimitedException(String message, String problemType, String correlationId, Duration retryAfter) {
    super(message, 429, problemType, correlationId, retryAfter, null);
  }
}
