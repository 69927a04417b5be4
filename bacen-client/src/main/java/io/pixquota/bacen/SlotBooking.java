package io.pixquota.bacen;

import io.pixquota.bacen.internal.ThrottleMetrics;
import io.pixquota.bacen.internal.TimeSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okhttp3.Call;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call's way to its slot: book it, sleep until it, and if the thread woke too late, book a fresh one (at most
 * {@link #MAX_REBOOKS} times). An interrupt or a cancel while sleeping lets go at once and gives the tokens back.
 */
final class SlotBooking {
  private static final Logger LOG = LoggerFactory.getLogger(SlotBooking.class);
  /** How often a sleeping call checks whether it was cancelled: often enough to let go within a few of them. */
  private static final long CANCEL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /**
   * How many times a call that woke too late books a fresh slot before it leaves anyway: each rebooking costs a
   * token and a round trip, and a machine that oversleeps three times in a row will not do better on the fourth.
   */
  static final int MAX_REBOOKS = 3;

  private final long lateLimitNanos;
  private final TimeSource time;
  private final ThrottleMetrics metrics;

  SlotBooking(Duration lateLimit, TimeSource time, ThrottleMetrics metrics) {
    this.lateLimitNanos = lateLimit.toNanos();
    this.time = time;
    this.metrics = metrics;
  }

  /**
   * Books a slot of {@code cost} within {@code maxWait} and returns once it has come.
   *
   * @return how late, in nanoseconds, the call is after its (last) slot
   */
  long bookAndSleep(TokenBucket bucket, double cost, Duration maxWait, Call call) throws IOException {
    long askedAt = time.nanoTime();
    long slot = bookOne(bucket, cost, maxWait, maxWait, call);
    long late = time.nanoTime() - slot;
    for (int rebooks = 0; late > lateLimitNanos && rebooks < MAX_REBOOKS; rebooks++) {
      // Woke too late: leaving now could bunch with the calls booked right after us and breach the provider's
      // bucket. Book a fresh slot after them instead. The missed slot is not given back (conservative).
      metrics.rebooked(bucket.name());
      Duration left = maxWait.minusNanos(time.nanoTime() - askedAt);
      slot = bookOne(bucket, cost, left.isNegative() ? Duration.ZERO : left, maxWait, call);
      late = time.nanoTime() - slot;
    }
    return late;
  }

  /**
   * Books a slot and sleeps until it; returns the slot. The slot in our clock: the bucket decided before its answer
   * reached this process, so answeredAt + wait is never early. answeredAt is taken on the I/O thread, not when this
   * thread got round to reading the answer: a thread starved of CPU after Redis answered (up to 400 ms on a loaded
   * 2-core machine) counts as late and rebooks, instead of leaving "on time" by its own reckoning with the burst.
   *
   * @param maxWait         the wait this booking may accept
   * @param reportedMaxWait the call's max wait, quoted in a refusal
   */
  private long bookOne(TokenBucket bucket, double cost, Duration maxWait, Duration reportedMaxWait, Call call)
      throws IOException {
    Acquisition a;
    try {
      a = bucket.acquire(cost, maxWait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while asking bucket '" + bucket.name() + "' for a slot");
    } catch (BucketUnavailableException e) {
      metrics.redisError(bucket.name());
      throw e;
    }
    if (!a.granted()) {
      metrics.refused(bucket.name());
      throw new ThrottleRefusedException(bucket.name(), a.waitTime(), reportedMaxWait);
    }
    long slot = a.answeredAtNanos() + a.waitTime().toNanos();
    try {
      time.sleepUntil(slot, CANCEL_POLL_NANOS, () -> {
        if (call.isCanceled()) {
          throw new InterruptedIOException("call canceled while waiting for its slot; not sent");
        }
      });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      giveBack(bucket, cost);
      throw new InterruptedIOException("interrupted while waiting for its slot; not sent");
    } catch (InterruptedIOException e) {
      giveBack(bucket, cost);
      throw e;
    }
    return slot;
  }

  /** Gives back the tokens of a call that was never sent; best effort, and the interrupt flag survives it. */
  private static void giveBack(TokenBucket bucket, double cost) {
    boolean interrupted = Thread.interrupted();
    try {
      bucket.refund(cost);
    } catch (BucketUnavailableException | RuntimeException | InterruptedException e) {
      LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", bucket.name(), cost, e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
