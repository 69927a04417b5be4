package io.pixquota.bacen.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks whose messages name the field and the value. Not part of the public API. */
public final class Checks {
  private Checks() {}

  /** {@code value > 0} and finite. */
  public static double positive(String field, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(field + " must be positive and finite, but was " + value);
    }
    return value;
  }

  /** {@code 0 < cost <= maxCost}: what one call may cost in a bucket whose smallest capacity is {@code maxCost}. */
  public static double cost(double cost, double maxCost) {
    if (!(cost > 0) || cost > maxCost) {
      throw new IllegalArgumentException("cost must be > 0 and <= capacity " + maxCost + ", but was " + cost);
    }
    return cost;
  }

  /** {@code 0 < share <= 1}. */
  public static double share(String field, double share) {
    if (!(share > 0) || share > 1) {
      throw new IllegalArgumentException(field + " must be > 0 and <= 1, but was " + share);
    }
    return share;
  }

  /** Not null and not negative. */
  public static Duration notNegative(String field, Duration value) {
    Objects.requireNonNull(value, field + " cannot be null");
    if (value.isNegative()) {
      throw new IllegalArgumentException(field + " must be >= 0, but was " + value);
    }
    return value;
  }

  /** Not null, not zero and not negative. */
  public static Duration positive(String field, Duration value) {
    Objects.requireNonNull(value, field + " cannot be null");
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + value);
    }
    return value;
  }

  /** Not null and not blank. */
  public static String notBlank(String field, String value) {
    Objects.requireNonNull(value, field + " cannot be null");
    if (value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be blank, but was '" + value + "'");
    }
    return value;
  }

  /** A duration in whole microseconds, saturated instead of overflowing (a max wait of years is "forever"). */
  public static long saturatedMicros(Duration d) {
    try {
      return d.toNanos() / 1000;
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE / 2;
    }
  }
}
