package io.pixquota.throttle;

import java.io.IOException;

/**
 * The throttle did not let a call go, so it was not sent to the provider. An {@link IOException}, because OkHttp
 * reports those to an async call's callback, while a RuntimeException would escape on the dispatcher thread.
 *
 * <p>Two conditions, one subclass each: {@link ThrottleRefusedException} (the booked slot would be further away than
 * the max wait; nothing was consumed) and {@link BucketUnavailableException} (the bucket's store did not answer, and
 * no local fallback took the call). {@code PixClient} reports both as its unchecked {@code PixThrottledException}.
 */
public abstract class ThrottleException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String bucket;

  ThrottleException(String bucket, String message, Throwable cause) {
    super("Bucket '" + bucket + "' " + message, cause);
    this.bucket = bucket;
  }

  /** The bucket's name. */
  public String bucket() {
    return bucket;
  }
}
