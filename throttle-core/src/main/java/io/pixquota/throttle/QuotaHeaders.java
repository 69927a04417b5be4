package io.pixquota.throttle;

/**
 * The header family a provider states its remaining quota in, on every answer ({@link ThrottleBuilder#quotaHeaders}).
 * Read strictly: a value that is not a whole number from 0 to 1,000,000,000 is counted and ignored, never trusted.
 */
public enum QuotaHeaders {
  /**
   * The IETF's {@code RateLimit: "<policy>";r=<remaining>;t=<seconds>} (draft-ietf-httpapi-ratelimit-headers; several
   * policies, comma-separated: the fewest remaining), or its earlier {@code RateLimit-Remaining: <remaining>}.
   */
  IETF,
  /** {@code X-RateLimit-Remaining: <remaining>} (GitHub, and many gateways). */
  X_RATELIMIT
}
