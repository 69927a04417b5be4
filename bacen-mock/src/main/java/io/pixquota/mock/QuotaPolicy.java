package io.pixquota.mock;

import java.util.Locale;

/**
 * The provider's limit. {@code BUCKET}: {@code limit} = capacity, refilled by {@code refillTokens} every
 * {@code periodMillis} (continuously). {@code SLIDING} and {@code FIXED}: at most {@code limit} requests per
 * {@code periodMillis} window, sliding (exact log) or aligned to fixed boundaries.
 */
public record QuotaPolicy(Kind kind, long limit, double refillTokens, long periodMillis) {
  /** The kinds of limit the mock can enforce. */
  public enum Kind { BUCKET, SLIDING, FIXED }

  public QuotaPolicy {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1, but was " + limit);
    }
    if (periodMillis < 1) {
      throw new IllegalArgumentException("periodMillis must be >= 1, but was " + periodMillis);
    }
    if (kind == Kind.BUCKET && !(refillTokens > 0)) {
      throw new IllegalArgumentException("refillTokens must be > 0, but was " + refillTokens);
    }
  }

  /** BACEN's DICT style: capacity 10, refilled 10 per second. */
  public static QuotaPolicy defaultBucket() {
    return bucket(10, 10, 1000);
  }

  public static QuotaPolicy bucket(long capacity, double refillTokens, long periodMillis) {
    return new QuotaPolicy(Kind.BUCKET, capacity, refillTokens, periodMillis);
  }

  public static QuotaPolicy sliding(long limit, long windowMillis) {
    return new QuotaPolicy(Kind.SLIDING, limit, limit, windowMillis);
  }

  public static QuotaPolicy fixed(long limit, long windowMillis) {
    return new QuotaPolicy(Kind.FIXED, limit, limit, windowMillis);
  }

  /** Window of the audit and of the {@code RateLimit-Policy} header, in whole seconds (at least 1). */
  long windowSeconds() {
    return Math.max(1, (periodMillis + 999) / 1000);
  }

  @Override
  public String toString() {
    return kind == Kind.BUCKET
        ? String.format(Locale.ROOT, "token bucket: capacity %d, %s tokens per %d ms", limit, refillTokens,
            periodMillis)
        : String.format(Locale.ROOT, "%s window: %d per %d ms", kind.name().toLowerCase(Locale.ROOT), limit,
            periodMillis);
  }
}
