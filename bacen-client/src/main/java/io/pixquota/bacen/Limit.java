package io.pixquota.bacen;

import io.pixquota.bacen.internal.Checks;

/**
 * One limit of a token bucket: at most {@code capacity} tokens at once (the largest instantaneous burst, not "per
 * second"), refilled continuously at {@code refillPerSecond} tokens per second.
 *
 * @param capacity        the largest burst, {@code > 0}
 * @param refillPerSecond tokens added per second, {@code > 0}
 */
public record Limit(double capacity, double refillPerSecond) {
  /** Validates both values; each violation throws {@link IllegalArgumentException} naming the field and value. */
  public Limit {
    Checks.positive("capacity", capacity);
    Checks.positive("refillPerSecond", refillPerSecond);
  }

  /** Shorthand for {@code new Limit(capacity, refillPerSecond)}. */
  public static Limit of(double capacity, double refillPerSecond) {
    return new Limit(capacity, refillPerSecond);
  }
}
