package io.pixquota.bacen.dict;

import io.pixquota.throttle.ThrottleException;

/**
 * A DICT lookup that did not return an entry. Unchecked; each subclass says why, and none holds an end user's id or
 * a key beyond its last characters. A lookup the throttle did not let go (the end user's bucket, the participant's
 * reserve or slot, the mirror's store) says the throttle's own refusal in {@link #refusal()}, as
 * {@code PixThrottledException.reason()} does for API Pix.
 */
public class DictException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private ThrottleException refusal;

  DictException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The throttle's refusal behind this exception ({@code ThrottleRefusedException}, ...); null: not a refusal. */
  public ThrottleException refusal() {
    return refusal;
  }

  /** This exception, with the throttle's refusal that caused it. */
  DictException because(ThrottleException refusal) {
    this.refusal = refusal;
    return this;
  }
}
