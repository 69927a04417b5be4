package io.pixquota.throttle.support;

import java.time.Duration;

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

  /**
   * The most tokens a limit may hold and an operation may move: {@value}. Beyond it the script's arithmetic (doubles,
   * whole microseconds, TTLs in milliseconds) would lose precision or overflow.
   */
  public static final double MAX_TOKENS = 1e12;
  /** The slowest refill: {@value} tokens per second, one token in 11.6 days. */
  public static final double MIN_REFILL_PER_SECOND = 1e-6;
  /** The longest timeout, wait or interval a setting may have: one day. */
  public static final Duration MAX_DURATION = Duration.ofDays(1);

  /** {@link #positive(String, double)} and at most {@link #MAX_TOKENS}: a capacity, or a charge or refund. */
  public static double tokens(String field, double value) {
    positive(field, value);
    if (value > MAX_TOKENS) {
      throw new IllegalArgumentException(field + " must be at most " + MAX_TOKENS + ", but was " + value);
    }
    return value;
  }

  /** {@link #tokens} and at least {@link #MIN_REFILL_PER_SECOND}: a refill rate. */
  public static double refill(String field, double value) {
    tokens(field, value);
    if (value < MIN_REFILL_PER_SECOND) {
      throw new IllegalArgumentException(field + " must be at least " + MIN_REFILL_PER_SECOND
          + " (one token in 11.6 days), but was " + value);
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

  /** Not null; the message is built only when it is (a refused call's path runs these checks too). */
  private static <T> T notNull(String field, T value) {
    if (value == null) {
      throw new NullPointerException(field + " cannot be null");
    }
    return value;
  }

  /** Not null and not negative. */
  public static Duration notNegative(String field, Duration value) {
    notNull(field, value);
    if (value.isNegative()) {
      throw new IllegalArgumentException(field + " must be >= 0, but was " + value);
    }
    return value;
  }

  /** Not null, not zero and not negative. */
  public static Duration positive(String field, Duration value) {
    notNull(field, value);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(field + " must be > 0, but was " + value);
    }
    return value;
  }

  /** A configuration lease: positive and at most {@code max}, the fleet's bound. */
  public static Duration configurationLease(Duration lease, Duration max) {
    positive("configurationLease", lease);
    if (lease.compareTo(max) > 0) {
      throw new IllegalArgumentException("configurationLease must be at most " + max + " (the fleet's bound: a "
          + "stale setting may not outlive its replica longer), but was " + lease);
    }
    return lease;
  }

  /** How long a bucket's standing is kept: positive and at most a year. */
  public static Duration standingTtl(String field, Duration ttl) {
    positive(field, ttl);
    if (ttl.compareTo(Duration.ofDays(366)) > 0) {
      throw new IllegalArgumentException(field + " must be at most 366 days, but was " + ttl);
    }
    return ttl;
  }

  /** {@link #notNegative(String, Duration)} and at most {@link #MAX_DURATION}. */
  public static Duration notNegativeAtMostADay(String field, Duration value) {
    return atMostADay(field, notNegative(field, value));
  }

  /** {@link #positive(String, Duration)} and at most {@link #MAX_DURATION}. */
  public static Duration positiveAtMostADay(String field, Duration value) {
    return atMostADay(field, positive(field, value));
  }

  private static Duration atMostADay(String field, Duration value) {
    if (value.compareTo(MAX_DURATION) > 0) {
      throw new IllegalArgumentException(field + " must be at most " + MAX_DURATION + ", but was " + value);
    }
    return value;
  }

  /** An HTTP header name (RFC 9110 token characters), trimmed. */
  public static String headerName(String field, String value) {
    String v = notBlank(field, value).trim();
    if (!v.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}")) {
      throw new IllegalArgumentException(field + " must be an HTTP header name, but was '" + v + "'");
    }
    return v;
  }

  /** A name that goes into a store's key: 1 to 64 letters, digits, '.', '_', ':' or '-'. */
  public static String keyName(String field, String value) {
    if (value == null || !value.matches("[A-Za-z0-9._:-]{1,64}")) {
      throw new IllegalArgumentException(field + " must be 1 to 64 letters, digits, '.', '_', ':' or '-', but was '"
          + value + "'");
    }
    return value;
  }

  /** A pool's name (a bucket's, often): not blank, at most 200 characters, no '{', '}' or whitespace. */
  public static String poolName(String name) {
    notBlank("pool name", name);
    if (name.length() > 200 || !name.matches("[^{}\\s]+")) {
      throw new IllegalArgumentException("pool name must be at most 200 characters without '{', '}' or whitespace, "
          + "but was '" + name + "'");
    }
    return name;
  }

  /** A permit pool's capacity: calls in flight at once, 1..100000. */
  public static int poolCapacity(int capacity) {
    if (capacity < 1 || capacity > 100_000) {
      throw new IllegalArgumentException("pool capacity must be within 1..100000, but was " + capacity);
    }
    return capacity;
  }

  /** Not null and not blank. */
  public static String notBlank(String field, String value) {
    notNull(field, value);
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
