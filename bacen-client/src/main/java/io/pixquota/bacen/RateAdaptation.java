package io.pixquota.bacen;

/**
 * How a shared bucket's rate follows the provider's refusals (AIMD): a 429 on a call the bucket admitted under the
 * current rate cuts the fleet's rate to {@code decrease} of itself, at once for every replica (the factor is kept in
 * Redis next to the bucket); while no 429 comes, the rate climbs back by {@code increasePerSecond} of the configured
 * rate each second, never above the configured rate and never below {@code floor} of it. See docs/operations.md,
 * "The provider's signals", for why these defaults.
 *
 * @param decrease          the factor a cut multiplies the rate by, {@code 0 < decrease < 1}; default
 *                          {@value #DEFAULT_DECREASE}
 * @param increasePerSecond how much of the configured rate comes back per second without a 429, {@code 0 <
 *                          increasePerSecond <= 1}; default {@value #DEFAULT_INCREASE_PER_SECOND} (from one cut, the
 *                          configured rate is back in 30 s)
 * @param floor             the lowest share of the configured rate, {@code 0 < floor <= 1}; default
 *                          {@value #DEFAULT_FLOOR}
 */
public record RateAdaptation(double decrease, double increasePerSecond, double floor) {
  /** Default {@link #decrease()}: {@value}. */
  public static final double DEFAULT_DECREASE = 0.85;
  /** Default {@link #increasePerSecond()}: {@value}. */
  public static final double DEFAULT_INCREASE_PER_SECOND = 0.005;
  /** Default {@link #floor()}: {@value}. */
  public static final double DEFAULT_FLOOR = 0.25;

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
  }

  /** The defaults. */
  public static RateAdaptation defaults() {
    return new RateAdaptation(DEFAULT_DECREASE, DEFAULT_INCREASE_PER_SECOND, DEFAULT_FLOOR);
  }
}
