package io.pixquota.throttle.store;

import java.io.IOException;

/**
 * The store did not answer (Redis timed out, refused the connection, lost its script) or cannot keep its promise for
 * this bucket. Thrown by the store SPIs; {@link io.pixquota.throttle.Throttle} hands it to its callers as an
 * {@code io.pixquota.throttle.store.StoreUnavailableException} with the same message.
 */
public final class StoreUnavailableException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String bucket;
  private final String detail;

  public StoreUnavailableException(String bucket, String message, Throwable cause) {
    super("Bucket '" + bucket + "' is unavailable: " + message, cause);
    this.bucket = bucket;
    this.detail = message;
  }

  /** The bucket's or pool's name. */
  public String bucket() {
    return bucket;
  }

  /** Why, without the bucket's name. */
  public String detail() {
    return detail;
  }
}
