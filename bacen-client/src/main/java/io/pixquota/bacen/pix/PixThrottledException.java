package io.pixquota.bacen.pix;

import io.pixquota.throttle.ThrottleException;

/**
 * Our own shared bucket did not let the call go, so it was not sent to the provider. The cause says why: a
 * {@link io.pixquota.throttle.ThrottleRefusedException} (its slot was further away than the max wait; nothing was
 * consumed) or a {@link io.pixquota.throttle.BucketUnavailableException} (Redis did not answer and no local fallback
 * took the call). Never retried by the client.
 */
public final class PixThrottledException extends PixException {
  private static final long serialVersionUID = 1L;

  PixThrottledException(String message, ThrottleException cause) {
    super(message + ": " + cause.getMessage(), 0, null, null, cause);
  }

  /** Why the call was not sent. */
  public ThrottleException reason() {
    return (ThrottleException) getCause();
  }
}
