package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.TimeSource;

/**
 * What tests of any module reach of the throttle's package-private seams: its clock, and how often a late call books
 * again. Published in pixquota-core's test jar.
 */
public final class ThrottleTesting {
  /** {@link Booking#MAX_REBOOKS}. */
  public static final int MAX_REBOOKS = Booking.MAX_REBOOKS;

  private ThrottleTesting() {}

  /** The builder, reading and sleeping on {@code time}. */
  public static ThrottleBuilder onTime(ThrottleBuilder builder, TimeSource time) {
    return builder.timeSource(time);
  }

  /** A throttle over {@code bucket} on {@code time}: {@code Throttle.builder(bucket)} with the test's clock. */
  public static ThrottleBuilder builder(TokenBucket bucket, TimeSource time) {
    return Throttle.builder(bucket).timeSource(time);
  }
}
