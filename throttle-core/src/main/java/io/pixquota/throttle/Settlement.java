package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.support.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a throttle does around a call's send, one path for every HTTP client: sleeps until the slot, watches the plan's
 * margin (a call that leaves later than its plan's J after its slot), sends once, and settles the answer (a 429 told to
 * the bucket, the cost the answer's status says charged or refunded, the provider's quota headers read). A failure here
 * never fails the response. Threadsafe.
 */
final class Settlement {
  private static final Logger LOG = LoggerFactory.getLogger(Throttle.class);

  private final Duration assumedJitter;
  private final TimeSource time;
  private final ThrottleMetrics metrics;
  private final ProviderRefusals refusals;
  private final QuotaCalibration calibration;
  private final AtomicLong lastMarginWarnNanos;

  /**
   * @param assumedJitter a plan's J, watched live; null without a plan
   * @param quotaSignal   the header the provider's own 429s carry; null: every 429 counts
   * @param quotaHeaders  the header family the provider states its remaining quota in; null: not read
   */
  Settlement(Duration assumedJitter, String quotaSignal, QuotaHeaders quotaHeaders, TimeSource time,
      ThrottleMetrics metrics) {
    this.assumedJitter = assumedJitter;
    this.time = time;
    this.metrics = metrics;
    this.refusals = new ProviderRefusals(quotaSignal, time, metrics);
    this.calibration = new QuotaCalibration(quotaHeaders, time, metrics);
    this.lastMarginWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  }

  /** A call leaves {@code lateNanos} after its slot: more than the plan's J is counted, and a WARN once a minute. */
  void leaving(String bucket, long lateNanos) {
    if (assumedJitter == null || lateNanos <= assumedJitter.toNanos()) {
      return;
    }
    long now = time.nanoTime();
    metrics.marginExceeded(bucket, now);
    long last = lastMarginWarnNanos.get();
    if (now - last > TimeUnit.MINUTES.toNanos(1) && lastMarginWarnNanos.compareAndSet(last, now)) {
      LOG.warn("Bucket '{}': a call left {} ms after its slot, more than the {} ms of jitter its plan assumes; the "
          + "settings are no longer provably under the provider's quota (see bacen.throttle.margin.exceeded)",
          bucket, TimeUnit.NANOSECONDS.toMillis(lateNanos), assumedJitter.toMillis());
    }
  }

  /** The provider answered {@code status} to the call {@code booking} let go on {@code granted}. */
  void answered(Booking booking, Acquisition granted, int status, UnaryOperator<String> headers) {
    if (status == 429) {
      refusals.refused(booking.bucket, booking.plan.route(), granted, headers);
    } else {
      calibration.answered(booking.bucket, granted, headers);
    }
    Double total = booking.totalFor(status);
    if (total != null && total != booking.cost) {
      settle(booking.bucket, total - booking.cost);
    }
  }

  /** Charges (delta > 0) or refunds (delta < 0) after the response; a failure here never fails the response. */
  private void settle(TokenBucket bucket, double delta) {
    try {
      if (delta > 0) {
        bucket.charge(delta);
      } else {
        bucket.refund(-delta);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (StoreUnavailableException | RuntimeException e) {
      metrics.redisError(bucket.name());
      LOG.warn("Bucket '{}': could not settle the response cost ({} tokens): {}", bucket.name(), delta,
          e.getMessage());
    }
  }

  /** Sleeps until the booked slot, sends, and settles the answer: one path for every HTTP client. */
  <R> R sleepSendAndSettle(SlotWaits waits, Booking booking, BooleanSupplier canceled, Exchange<R> exchange)
      throws IOException {
    SlotWaits.Leaving slot = waits.sleepAndLeave(booking, canceled);
    booking.observed.left(time.nanoTime());
    String name = booking.bucket.name();
    long late = slot.lateNanos();
    leaving(name, late);
    long sentAt = time.nanoTime();
    long waitedNanos = sentAt - booking.askedAtNanos();
    booking.sending(sentAt);
    R response;
    try {
      response = exchange.send(); // nothing between the lateness check and the send
    } finally {
      metrics.granted(name, booking.priority, Duration.ofNanos(waitedNanos));
      metrics.lateness(name, late);
    }
    metrics.answered(name, time.nanoTime() - sentAt);
    answered(booking, slot.granted(), exchange.status(response), h -> exchange.header(response, h));
    return response;
  }
}
