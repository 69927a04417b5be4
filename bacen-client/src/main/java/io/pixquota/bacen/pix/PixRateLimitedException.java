package io.pixquota.bacen.pix;

import java.time.Duration;
import java.util.Optional;

/** The provider answered 429, after any retries. With the shared bucket sized under the quota this should not happen. */
public final class PixRateLimitedException extends PixException {
  private static final long serialVersionUID = 1L;
  private final transient Duration retryAfter;

  PixRateLimitedException(String message, String problemType, String correlationId, Duration retryAfter) {
    super(message, 429, problemType, correlationId, null);
    this.retryAfter = retryAfter;
  }

  /** The provider's Retry-After, when it sent a valid one (DICT sends none). */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }
}
