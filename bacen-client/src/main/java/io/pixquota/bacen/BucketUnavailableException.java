package io.pixquota.bacen;

/**
 * The bucket's store (Redis) failed or did not answer in time, so no decision was taken: nothing was booked by this
 * call as far as the caller can tell, and the call it guards must not be made on the bucket's behalf.
 */
public final class BucketUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final String bucket;

  public BucketUnavailableException(String bucket, String message, Throwable cause) {
    super("Bucket '" + bucket + "': " + message, cause);
    this.bucket = bucket;
  }

  /** The bucket's name. */
  public String bucket() {
    return bucket;
  }
}
