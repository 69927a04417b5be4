package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.TimeSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throttle's blocking way to a slot: book it, sleep until it, and book a fresh one if the thread woke too late (at
 * most {@link Booking#MAX_REBOOKS} times), if the bucket's state that booked it was lost meanwhile, or if the provider
 * refused a call and the rate that booked it was cut. An interrupt or a cancel while sleeping lets go at once and
 * gives the tokens back. A call of a class with a horizon ({@link Priority}) asks for a slot no further ahead than
 * it; when the bucket has none that soon, it sleeps, holding nothing, until the bucket said one would be free, and
 * asks again.
 */
final class SlotWaits {
  private static final Logger LOG = LoggerFactory.getLogger(SlotWaits.class);
  /** How often a sleeping call checks whether it was cancelled: often enough to let go within a few of them. */
  private static final long CANCEL_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final long lateLimitNanos;
  private final TimeSource time;
  private final ThrottleMetrics metrics;
  private final AtomicLong lastLostWarnNanos;
  private final AskingLine line = new AskingLine();
  private final PermitWaits permits = new PermitWaits(this);
  private final AskOrderTrades trades = new AskOrderTrades();
  private final LeavingOrder leaving = new LeavingOrder();
  private final PermitHolds holds;

  /** @param providerTimeout how long the provider may keep working on a call after its send; null without pools */
  SlotWaits(Duration lateLimit, TimeSource time, ThrottleMetrics metrics, Duration providerTimeout) {
    this.lateLimitNanos = lateLimit.toNanos();
    this.time = time;
    this.metrics = metrics;
    this.holds = new PermitHolds(time, metrics.permits(), providerTimeout);
    this.lastLostWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  }

  /** The slot a call leaves on: the bucket's answer that booked it, and how late, in nanoseconds, the call is. */
  record Leaving(Acquisition granted, long lateNanos) {}

  /**
   * Sleeps until the booking's slot and returns it once it is still good to leave on, booking again (blocking) when
   * it is not: late, its state lost, or its rate cut. The booking was made by the caller (the interceptor, blocking)
   * or by an async call that waited for its slot without a thread and is checked again right before its send.
   */
  Leaving sleepAndLeave(Booking booking, BooleanSupplier canceled) throws IOException {
    while (true) {
      sleepUntil(booking, canceled);
      if (!booking.checkBeforeLeaving()) {
        return new Leaving(booking.granted(), booking.lateNanos());
      }
      if (booking.takeRetimed()) {
        if (booking.slotNanos() - booking.askedAtNanos() > booking.maxWait.toNanos()) {
          giveBack(booking.bucket, booking.cost);
          booking.releasePermit();
          throw booking.movedTooFar();
        }
        continue; // moved to the new rate by a cut: sleep until the new slot, no round trip
      }
      book(booking, canceled);
    }
  }

  /**
   * Books the call's slot, blocking: asks no further ahead than its class's horizon, and while the bucket has no slot
   * that soon, sleeps (holding nothing, checking for a cancel) until the bucket said one would be free and asks again.
   *
   * @throws ThrottleRefusedException when even that would be past what is left of the max wait
   */
  void book(Booking booking, BooleanSupplier canceled) throws IOException {
    if (booking.horizon == null) {
      askUntilBooked(booking, canceled);
      return;
    }
    // A class with a horizon: its calls ask one at a time, in the order they came (AskingLine). Else every one of
    // them would ask at each free slot and all but one be told to wait again: a round trip per waiting call per slot.
    AskingLine.Place place = line.join(booking.bucket);
    try {
      place.before().get(booking.leftToWait().toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      place.leave();
      metrics.refused(booking.bucket.name(), booking.priority);
      throw ThrottleRefusedException.queuedTooLong(booking.bucket.name(), booking.priority, booking.maxWait);
    } catch (InterruptedException e) {
      place.leave();
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting to ask for its slot; not sent");
    }
    try {
      askUntilBooked(booking, canceled);
    } finally {
      place.mine().complete(null);
    }
  }

  /** The line of this throttle's calls of classes with a horizon, blocking and async. */
  AskingLine line() {
    return line;
  }

  AskOrderTrades trades() {
    return trades;
  }

  LeavingOrder leaving() {
    return leaving;
  }

  TimeSource time() {
    return time;
  }

  ThrottleMetrics metrics() {
    return metrics;
  }

  /** The permits this throttle's calls hold, and how each goes back. */
  PermitHolds holds() {
    return holds;
  }

  long lateLimitNanos() {
    return lateLimitNanos;
  }

  private void askUntilBooked(Booking booking, BooleanSupplier canceled) throws IOException {
    checkCanceled(canceled); // cancelled while it waited for its turn: nothing booked, nothing to give back
    while (!took(booking, booking.needsPermit() ? permits.take(booking, canceled)
        : acquire(booking.bucket, booking.cost, booking.askWait()))) {
      try {
        long left;
        while ((left = booking.slotNanos() - time.nanoTime()) > 0) {
          checkCanceled(canceled);
          time.sleepNanos(Math.min(left, CANCEL_POLL_NANOS));
        }
        checkCanceled(canceled);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting to ask for its slot; not sent");
      }
    }
  }

  /**
   * {@link Booking#take}, and a permit given back when the slot is not booked: refused, or deferred (a call that
   * waits to ask again holds nothing).
   */
  static boolean took(Booking booking, Acquisition a) throws ThrottleRefusedException {
    boolean booked;
    try {
      booked = booking.take(a);
    } catch (ThrottleRefusedException e) {
      booking.releasePermit();
      throw e;
    }
    if (!booked) {
      booking.releasePermit();
    }
    return booked;
  }

  /** Asks the bucket for a slot, blocking; an unavailable bucket is counted. */
  Acquisition acquire(TokenBucket bucket, double cost, Duration maxWait) throws IOException {
    try {
      return bucket.acquire(cost, maxWait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while asking bucket '" + bucket.name() + "' for a slot");
    } catch (StoreUnavailableException e) {
      metrics.redisError(bucket.name());
      throw e;
    }
  }

  /** Counts a slot lost with its bucket's state; WARN at most once a minute. */
  void stateLost(String bucket) {
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
   * Sleeps until the slot, in steps that check for a cancel, the booking state's loss and a cut of its rate. An
   * interrupt or a cancel lets go at once and gives the tokens back.
   */
  private void sleepUntil(Booking booking, BooleanSupplier canceled) throws InterruptedIOException {
    try {
      long left;
      while ((left = booking.slotNanos() - time.nanoTime()) > 0 && !booking.voided()) {
        checkCanceled(canceled);
        time.sleepNanos(Math.min(left, CANCEL_POLL_NANOS));
      }
      checkCanceled(canceled);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      giveBack(booking.bucket, booking.cost);
      booking.releasePermit();
      throw new InterruptedIOException("interrupted while waiting for its slot; not sent");
    } catch (InterruptedIOException e) {
      giveBack(booking.bucket, booking.cost);
      booking.releasePermit();
      throw e;
    }
  }

  private static void checkCanceled(BooleanSupplier canceled) throws InterruptedIOException {
    if (canceled.getAsBoolean()) {
      throw canceledWhile(true);
    }
  }

  /** The failure of a call cancelled before its send: booked ({@code true}), or not yet. */
  static InterruptedIOException canceledWhile(boolean booked) {
    return new InterruptedIOException(booked ? "call canceled while waiting for its slot; not sent"
        : "call canceled while waiting to ask for its slot; not sent");
  }

  /** Gives back the tokens of a call that was never sent, without waiting for the store; best effort. */
  static void giveBackAsync(TokenBucket bucket, double cost) {
    try {
      bucket.refundAsync(cost).whenComplete((left, failure) -> {
        if (failure != null) {
          LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", bucket.name(), cost,
              Async.cause(failure).toString());
        }
      });
    } catch (RuntimeException e) {
      LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", bucket.name(), cost,
          e.toString());
    }
  }

  /** Gives back the tokens of a call that was never sent; best effort, and the interrupt flag survives it. */
  static void giveBack(TokenBucket bucket, double cost) {
    boolean interrupted = Thread.interrupted();
    try {
      bucket.refund(cost);
    } catch (StoreUnavailableException | RuntimeException | InterruptedException e) {
      LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", bucket.name(), cost, e.toString());
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
