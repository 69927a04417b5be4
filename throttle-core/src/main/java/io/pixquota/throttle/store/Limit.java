package io.pixquota.throttle.store;

import io.pixquota.throttle.support.Checks;

/**
 * One limit of a token bucket: at most {@code capacity} tokens at once (the largest instantaneous burst, not "per
 * second"), refilled continuously at {@code refillPerSecond} tokens per second.
 *
 * @param capacity        the largest burst, {@code 0 < capacity <= 1e12}
 * @param refillPerSecond tokens added per second, {@code 1e-6 <= refillPerSecond <= 1e12}
 */
public record Limit(double capacity, double refillPerSecond) {
  /**
   * Validates both values; each violation throws {@link IllegalArgumentException} naming the field and value.
   * Capacity and refill are at most 1e12; the refill is at least 1e-6 per second (one token in 11.6 days).
   */
  public Limit {
    Checks.tokens("capacity", capacity);
    Checks.refill("refillPerSecond", refillPerSecond);
  }

  /** Shorthand for {@code new Limit(capacity, refillPerSecond)}. */
  public static Limit of(double capacity, double refillPerSecond) {
    return new Limit(capacity, refillPerSecond);
  }
}
