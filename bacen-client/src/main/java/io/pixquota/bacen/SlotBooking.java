package io.pixquota.bacen;

import io.pixquota.bacen.internal.ThrottleMetrics;
import io.pixquota.bacen.internal.TimeSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Call;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call's way to its slot: book it, sleep until it, and book a fresh one if the thread woke too late (at most
 * {@link #MAX_REBOOKS} times), if the bucket's state that booked it was lost meanwhile, or if the provider refused a
 * call and the rate that booked it was cut. An interrupt or a cancel while sleeping lets go at once and gives the
 * tokens back.
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
  private final AtomicLong lastLostWarnNanos;

  SlotBooking(Duration lateLimit, TimeSource time, ThrottleMetrics metrics) {
    this.lateLimitNanos = lateLimit.toNanos();
    this.time = time;
    this.metrics = metrics;
    this.lastLostWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  }

  /** The slot a call leaves on: the bucket's answer that booked it, and how late, in nanoseconds, the call is. */
  record Slot(Acquisition granted, long lateNanos) {}

  /** Books a slot of {@code cost} within {@code maxWait} and returns once it has come. */
  Slot bookAndSleep(TokenBucket bucket, double cost, Duration maxWait, Call call) throws IOException {
    long askedAt = time.nanoTime();
    Booked booked = bookOne(bucket, cost, maxWait, maxWait, call);
    int lateRebooks = 0;
    int cutRebooks = 0;
    for (int lostRebooks = 0; lostRebooks <= MAX_REBOOKS; ) {
      boolean lost = bucket.lost(booked.granted());
      long late = time.nanoTime() - booked.slotNanos();
      if (!lost && bucket.superseded(booked.granted())) {
        // The provider refused a call and the fleet's rate was cut since this slot was booked: the slot belongs to
        // the old rate (and may fall in the provider's Retry-After). Book again at the new one. Nothing is given
        // back: the cut reset the bucket.
        if (++cutRebooks > MAX_REBOOKS) {
          throw new BucketUnavailableException(bucket.name(), "the provider refused calls and the rate was cut "
              + cutRebooks + " times while this call waited; not sent", null);
        }
        metrics.superseded(bucket.name());
      } else if (lost) {
        // The state that booked this slot is gone and a new one has answered: the new one does not know the slot,
        // and leaving on it could join the new state's full burst. Book again, in the new state. The lost tokens
        // are not given back: there is nothing to give them back to.
        lostRebooks++;
        stateLost(bucket.name());
      } else if (late > lateLimitNanos && lateRebooks < MAX_REBOOKS) {
        // Woke too late: leaving now could bunch with the calls booked right after us and breach the provider's
        // bucket. Book a fresh slot after them instead. The missed slot is not given back (conservative).
        lateRebooks++;
        metrics.rebooked(bucket.name());
      } else {
        return new Slot(booked.granted(), late);
      }
      Duration left = maxWait.minusNanos(time.nanoTime() - askedAt);
      booked = bookOne(bucket, cost, left.isNegative() ? Duration.ZERO : left, maxWait, call);
    }
    throw new BucketUnavailableException(bucket.name(), "its state was lost " + (MAX_REBOOKS + 1)
        + " times while this call waited; not sent", null);
  }

  /** A booked slot, and the answer that booked it. */
  private record Booked(Acquisition granted, long slotNanos) {}

  /** Counts a slot lost with its bucket's state; WARN at most once a minute. */
  private void stateLost(String bucket) {
    metrics.stateLost(bucket);
    long last = lastLostWarnNanos.get();
    long now = time.nanoTime();
    if (now - last > TimeUnit.MINUTES.toNanos(1) && lastLostWarnNanos.compareAndSet(last, now)) {
      LOG.warn("Bucket '{}': its state in Redis was recreated (restart without persistence, failover or deleted "
          + "key) while calls waited for slots booked in the old one; they book again (see "
          + "bacen.throttle.state.lost)", bucket);
    }
  }

  /**
   * Books a slot and sleeps until it, or until the state that booked it is found lost. The slot in our clock: the
   * bucket decided before its answer reached this process, so answeredAt + wait is never early. answeredAt is taken
   * on the I/O thread, not when this thread got round to reading the answer: a thread starved of CPU after Redis
   * answered (up to 400 ms on a loaded 2-core machine) counts as late and rebooks, instead of leaving "on time" by
   * its own reckoning with the burst.
   *
   * @param maxWait         the wait this booking may accept
   * @param reportedMaxWait the call's max wait, quoted in a refusal
   */
  private Booked bookOne(TokenBucket bucket, double cost, Duration maxWait, Duration reportedMaxWait, Call call)
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
    Booked booked = new Booked(a, a.answeredAtNanos() + a.waitTime().toNanos());
    try {
      sleepUntil(booked, bucket, call);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      giveBack(bucket, cost);
      throw new InterruptedIOException("interrupted while waiting for its slot; not sent");
    } catch (InterruptedIOException e) {
      giveBack(bucket, cost);
      throw e;
    }
    return booked;
  }

  /** Sleeps until the slot, in steps that check for a cancel, the booking state's loss and a cut of its rate. */
  private void sleepUntil(Booked booked, TokenBucket bucket, Call call) throws InterruptedIOException,
      InterruptedException {
    long left;
    while ((left = booked.slotNanos() - time.nanoTime()) > 0 && !bucket.lost(booked.granted())
        && !bucket.superseded(booked.granted())) {
      checkCanceled(call);
      time.sleepNanos(Math.min(left, CANCEL_POLL_NANOS));
    }
    checkCanceled(call);
  }

  private static void checkCanceled(Call call) throws InterruptedIOException {
    if (call.isCanceled()) {
      throw new InterruptedIOException("call canceled while waiting for its slot; not sent");
    }
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
