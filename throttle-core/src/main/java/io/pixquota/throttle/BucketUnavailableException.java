package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;

/**
 * The bucket's store did not answer (and no local fallback took the call), or the bucket could not keep a slot: the
 * call was not sent. Its cause is the store's own failure (a Redis timeout, a refused connection), when there was one.
 */
public final class BucketUnavailableException extends ThrottleException {
  private static final long serialVersionUID = 1L;

  public BucketUnavailableException(String bucket, String message, Throwable cause) {
    super(bucket, "is unavailable: " + message, cause);
  }

  /** The store's failure as the throttle's callers see it: same bucket, same message, the store's cause. */
  static BucketUnavailableException of(StoreUnavailableException e) {
    BucketUnavailableException api = new BucketUnavailableException(e.bucket(), e.detail(), e.getCause());
    api.setStackTrace(e.getStackTrace());
    return api;
  }
}
