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
  private final boolean passing;

  /** A failure that may last: the store answered with an error that asking again will not change. */
  public StoreUnavailableException(String bucket, String message, Throwable cause) {
    this(bucket, message, cause, false);
  }

  /**
   * @param passing whether the store may answer again soon (a node unreachable or silent, a failover under way): a
   *                caller with time left asks again ({@link #passing()})
   */
  public StoreUnavailableException(String bucket, String message, Throwable cause, boolean passing) {
    super("Bucket '" + bucket + "' is unavailable: " + message, cause);
    this.bucket = bucket;
    this.detail = message;
    this.passing = passing;
  }

  /**
   * Whether the store may answer again soon: its node could not be reached or did not answer (a restart, a Sentinel
   * or Cluster failover under way, a pause), rather than answered with an error that asking again will not change (a
   * refused password, the wrong kind of node). The throttle asks again, holding nothing, while a call's max wait
   * leaves time for it.
   */
  public boolean passing() {
    return passing;
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
