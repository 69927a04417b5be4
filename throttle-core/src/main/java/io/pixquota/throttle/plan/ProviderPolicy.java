package io.pixquota.throttle.plan;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * The provider's own limit, as it documents it (BACEN's DICT serves it at {@code GET /policies/{policy}}).
 *
 * <ul>
 *   <li>{@link Kind#TOKEN_BUCKET}: at most {@code limit} tokens, {@code refillTokens} added every
 *       {@code period} (continuously);</li>
 *   <li>{@link Kind#SLIDING_WINDOW}: at most {@code limit} calls in any window of length {@code period};</li>
 *   <li>{@link Kind#FIXED_WINDOW}: at most {@code limit} calls per window aligned on multiples of {@code period}.</li>
 * </ul>
 *
 * @param kind         the limiter's kind
 * @param limit        bucket capacity, or calls per window; {@code > 0}
 * @param refillTokens tokens per period (bucket); for windows, equal to {@code limit}
 * @param period       refill period or window length; {@code > 0}
 */
public record ProviderPolicy(Kind kind, double limit, double refillTokens, Duration period) {
  /** The kinds of provider limiter the planner knows. */
  public enum Kind { TOKEN_BUCKET, SLIDING_WINDOW, FIXED_WINDOW }

  public ProviderPolicy {
    Objects.requireNonNull(kind, "kind cannot be null");
    Checks.positive("limit", limit);
    Checks.positive("refillTokens", refillTokens);
    Checks.positive("period", period);
  }

  /** A token bucket of {@code capacity}, refilled by {@code refillTokens} every {@code period}. */
  public static ProviderPolicy tokenBucket(double capacity, double refillTokens, Duration period) {
    return new ProviderPolicy(Kind.TOKEN_BUCKET, capacity, refillTokens, period);
  }

  /** At most {@code calls} in any window of length {@code window}. */
  public static ProviderPolicy slidingWindow(double calls, Duration window) {
    return new ProviderPolicy(Kind.SLIDING_WINDOW, calls, calls, window);
  }

  /** At most {@code calls} per aligned window of length {@code window}. */
  public static ProviderPolicy fixedWindow(double calls, Duration window) {
    return new ProviderPolicy(Kind.FIXED_WINDOW, calls, calls, window);
  }

  /** The sustained rate the provider allows, in calls per second. */
  public double ratePerSecond() {
    return refillTokens / (period.toNanos() / 1e9);
  }
}
