package io.pixquota.throttle.store;

import java.time.Duration;
import java.util.Objects;

/**
 * What one process last heard of a shared bucket's state, as {@link TokenBucket#readings()} gives it without I/O: for
 * gauges, health details and logs, never for deciding.
 *
 * @param rateFactor         the share of the configured rate in force: 1 unless the provider's 429s cut it
 * @param configurations     configurations of the bucket live in the fleet (its own included): more than 1 while
 *                           replicas run different limits
 * @param providerHoldLeft   what is left of the hold the provider's last refusal put on the bucket; zero when none
 * @param stateRepairs       this process's calls that found fields of the shared state that could not be trusted and
 *                           had them reset
 * @param refusalsNotCounted 429s this process reported that did not count against the fleet's rate
 *                           ({@link TokenBucket.Refusal#NOT_COUNTED})
 * @param ratePerSecond      the refill per second in force: the slowest limit of every live configuration (another
 *                           replica's may be slower than this one's), times the rate factor; NaN before any answer
 */
public record BucketReadings(double rateFactor, int configurations, Duration providerHoldLeft, long stateRepairs,
    long refusalsNotCounted, double ratePerSecond) {
  /** A bucket that shares nothing: the configured rate, one configuration, no hold, nothing repaired. */
  public static final BucketReadings NONE = new BucketReadings(1, 1, Duration.ZERO, 0, 0, Double.NaN);

  public BucketReadings {
    Objects.requireNonNull(providerHoldLeft, "providerHoldLeft cannot be null");
  }
}
