package io.pixquota.throttle;

/** What the throttle does when the shared bucket cannot be reached. Never "unlimited". */
public enum RedisUnavailablePolicy {
  /** Default: the call is not sent; it fails with {@link BucketUnavailableException}. */
  FAIL_CLOSED,
  /**
   * The call is admitted by an in-memory bucket holding this process's share of the quota (capacity and rate times
   * the configured share, e.g. 1 / expected replicas), until Redis answers again.
   */
  LOCAL_FALLBACK
}
