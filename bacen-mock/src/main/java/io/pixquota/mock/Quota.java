package io.pixquota.mock;

/** A quota per integrator. Implementations are threadsafe. */
interface Quota {
  /** The answer to one request: allowed or not, and what the RateLimit headers say. */
  record Decision(boolean allowed, long remaining, long resetSeconds, long retryAfterSeconds) {}

  /** The state of one integrator's quota, for {@code GET /policies/{policy}}. */
  record State(double available) {}

  /** Decides one request of cost 1 arriving at {@code nowNanos}; a refused request consumes nothing. */
  Decision acquire(String integrator, long nowNanos);

  /** Charges {@code extra} more after the response (cost by status), even below zero. */
  void charge(String integrator, double extra, long nowNanos);

  State state(String integrator, long nowNanos);

  QuotaPolicy policy();

  /** Refills every integrator's quota. */
  void reset();

  /** Whole seconds, rounded up; never less than 1 (rounding down earns another 429). */
  static long ceilSeconds(double nanos) {
    return Math.max(1, (long) Math.ceil(nanos / 1e9));
  }
}
