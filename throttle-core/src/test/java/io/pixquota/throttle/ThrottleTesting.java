package io.pixquota.throttle;

import io.pixquota.throttle.internal.StepHash;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.TimeSource;
import java.util.List;
import java.util.Map;

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

  /** A local bucket of one limit on {@code time}, shared by the flows of {@code shares} (issue 46). */
  public static LocalTokenBucket sharedBucket(String name, Limit limit, TimeSource time, Map<String, Double> shares) {
    return new LocalTokenBucket(name, List.of(limit), time::nanoTime, new StepHash(),
        LocalTokenBucket.DEFAULT_CONFIGURATION_LEASE, RateAdaptation.defaults(), shares);
  }
}
