package io.pixquota.throttle.store;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.Objects;

/**
 * How a shared bucket's rate follows the provider's refusals (AIMD): a 429 on a call the bucket admitted under the
 * current rate cuts the fleet's rate to {@code decrease} of itself, at once for every replica (the factor is kept in
 * Redis next to the bucket); while no 429 comes, the rate climbs back by {@code increasePerSecond} of the configured
 * rate each second, never above the configured rate and never below {@code floor} of it. A lone cut (no cut in the
 * minute before it: a cold start's one 429, a blip) is taken back within {@code loneCutRecovery} when nothing
 * follows it. A refusal's Retry-After (or RateLimit reset) holds every replica for at most {@code maxProviderHold}:
 * a WAF, a gateway or a stub may say a day; a provider that means it keeps refusing, and each refusal holds again.
 * One replica's reports are bounded: a replica that made the last cut cannot cut again while other replicas ask for
 * slots without a 429 to report. See docs/operations.md, "The provider's signals", for why these defaults.
 *
 * @param decrease          the factor a cut multiplies the rate by, {@code 0 < decrease < 1}; default
 *                          {@value #DEFAULT_DECREASE}
 * @param increasePerSecond how much of the configured rate comes back per second without a 429, {@code 0 <
 *                          increasePerSecond <= 1}; default {@value #DEFAULT_INCREASE_PER_SECOND} (from one cut that is
 *                          not lone, the configured rate is back in 30 s)
 * @param floor             the lowest share of the configured rate, {@code 0 < floor <= 1}; default
 *                          {@value #DEFAULT_FLOOR}
 * @param maxProviderHold   the longest one refusal may hold the fleet, 0 to 1 h; default 10 s
 * @param loneCutRecovery   how soon the rate is back where it was after a lone cut, 0 (no faster than
 *                          {@code increasePerSecond}) to 60 s; default 5 s
 */
public record RateAdaptation(double decrease, double increasePerSecond, double floor, Duration maxProviderHold,
    Duration loneCutRecovery) {
  /** Default {@link #decrease()}: {@value}. */
  public static final double DEFAULT_DECREASE = 0.85;
  /** Default {@link #increasePerSecond()}: {@value}. */
  public static final double DEFAULT_INCREASE_PER_SECOND = 0.005;
  /** Default {@link #floor()}: {@value}. */
  public static final double DEFAULT_FLOOR = 0.25;
  /** Default {@link #maxProviderHold()}: 10 s, well under a minute. */
  public static final Duration DEFAULT_MAX_PROVIDER_HOLD = Duration.ofSeconds(10);
  /** Default {@link #loneCutRecovery()}: 5 s. */
  public static final Duration DEFAULT_LONE_CUT_RECOVERY = Duration.ofSeconds(5);
  private static final Duration MAX_HOLD = Duration.ofHours(1);
  private static final Duration MAX_LONE_RECOVERY = Duration.ofSeconds(60);

  /** @throws IllegalArgumentException naming the parameter and the value */
  public RateAdaptation {
    if (!(decrease > 0 && decrease < 1)) {
      throw new IllegalArgumentException("decrease must be within (0, 1), but was " + decrease);
    }
    if (!(increasePerSecond > 0 && increasePerSecond <= 1)) {
      throw new IllegalArgumentException("increasePerSecond must be within (0, 1], but was " + increasePerSecond);
    }
    if (!(floor > 0 && floor <= 1)) {
      throw new IllegalArgumentException("floor must be within (0, 1], but was " + floor);
    }
    Checks.notNegative("maxProviderHold", maxProviderHold);
    if (maxProviderHold.compareTo(MAX_HOLD) > 0) {
      throw new IllegalArgumentException("maxProviderHold must be at most PT1H, but was " + maxProviderHold);
    }
    Checks.notNegative("loneCutRecovery", loneCutRecovery);
    if (loneCutRecovery.compareTo(MAX_LONE_RECOVERY) > 0) {
      throw new IllegalArgumentException("loneCutRecovery must be at most PT1M, but was " + loneCutRecovery);
    }
  }

  /** The defaults' hold and lone recovery with these three. */
  public RateAdaptation(double decrease, double increasePerSecond, double floor) {
    this(decrease, increasePerSecond, floor, DEFAULT_MAX_PROVIDER_HOLD, DEFAULT_LONE_CUT_RECOVERY);
  }

  /** The defaults. */
  public static RateAdaptation defaults() {
    return new RateAdaptation(DEFAULT_DECREASE, DEFAULT_INCREASE_PER_SECOND, DEFAULT_FLOOR);
  }

  /** These settings with another {@link #maxProviderHold()}. */
  public RateAdaptation withMaxProviderHold(Duration hold) {
    return new RateAdaptation(decrease, increasePerSecond, floor, Objects.requireNonNull(hold,
        "maxProviderHold cannot be null"), loneCutRecovery);
  }

  /** These settings with another {@link #loneCutRecovery()}. */
  public RateAdaptation withLoneCutRecovery(Duration recovery) {
    return new RateAdaptation(decrease, increasePerSecond, floor, maxProviderHold, Objects.requireNonNull(recovery,
        "loneCutRecovery cannot be null"));
  }
}
