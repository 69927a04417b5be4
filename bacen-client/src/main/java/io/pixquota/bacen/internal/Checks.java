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
}
