package io.pixquota.throttle;

/**
 * The bucket's store (Redis) failed or did not answer in time, so no decision was taken: as far as the caller can
 * tell nothing was booked, and the call it guards was not sent. Thrown by {@link TokenBucket} operations and, under
 * {@link RedisUnavailablePolicy#FAIL_CLOSED}, passed on as it is by {@link Throttle}.
 */
public final class BucketUnavailableException extends ThrottleException {
  private static final long serialVersionUID = 1L;

  public BucketUnavailableException(String bucket, String message, Throwable cause) {
    super(bucket, "is unavailable: " + message, cause);
  }
}
