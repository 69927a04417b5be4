package io.pixquota.bacen;

import io.pixquota.bacen.internal.ThrottleMetrics;
import io.pixquota.bacen.internal.TimeSource;
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
 * One call's way to its slot: book it, sleep until it, and book a fresh one if the thread woke too late (at most
 * {@link #MAX_REBOOKS} times), if the bucket's state that booked it was lost meanwhile, or if the provider refused a
 * call and the rate that booked it was cut. An interrupt or a cancel while sleeping lets go at once and gives the
 * tokens back. A call of a class with a horizon ({@link Priority}) asks for a slot no further ahead than it; when
 * the bucket has none that soon, it sleeps, holding nothing, until the bucket said one would be free, and asks again.
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
  private final AskingLine line = new AskingLine();

  SlotBooking(Duration lateLimit, TimeSource time, ThrottleMetrics metrics) {
    this.lateLimitNanos = lateLimit.toNanos();
    this.time = time;
    this.metrics = metrics;
    this.lastLostWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  }

  /** The slot a call leaves on: the bucket's answer that booked it, and how late, in nanoseconds, the call is. */
  record Slot(Acquisition granted, long lateNanos) {}

  /**
   * Sleeps until the booking's slot and returns it once it is still good to leave on, booking again (blocking) when
   * it is not: late, its state lost, or its rate cut. The booking was made by the caller (the interceptor, blocking)
   * or by an async call that waited for its slot without a thread and is checked again right before its send.
   */
  Slot sleepAndLeave(Booking booking, BooleanSupplier canceled) throws IOException {
    while (true) {
      sleepUntil(booking, canceled);
      if (!booking.mustRebook()) {
        return new Slot(booking.granted(), booking.lateNanos());
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

  /** The line of this interceptor's calls of classes with a horizon, blocking and async. */
  AskingLine line() {
    return line;
  }

  private void askUntilBooked(Booking booking, BooleanSupplier canceled) throws IOException {
    checkCanceled(canceled); // cancelled while it waited for its turn: nothing booked, nothing to give back
    while (!booking.booked(acquire(booking.bucket, booking.cost, booking.askWait()))) {
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

  /** Asks the bucket for a slot, blocking; an unavailable bucket is counted. */
  Acquisition acquire(TokenBucket bucket, double cost, Duration maxWait) throws IOException {
    try {
      return bucket.acquire(cost, maxWait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while asking bucket '" + bucket.name() + "' for a slot");
    } catch (BucketUnavailableException e) {
      metrics.redisError(bucket.name());
      throw e;
    }
  }

  /**
   * One call's way to its slot, whichever thread (or none) waits for it: the bucket's answer that booked it, when
   * the call first asked, and how many times it booked again, by reason. Not threadsafe: one call's steps happen one
   * after the other.
   */
  final class Booking {
    final TokenBucket bucket;
    final double cost;
    final Priority priority;
    final String route;
    final Duration maxWait;
    private final Duration configuredMaxWait;
    final Duration horizon; // null: as far as the max wait
    private final long askedAtNanos;
    private Acquisition granted;
    private long slotNanos;
    private long lateNanos;
    private int lateRebooks;
    private int cutRebooks;
    private int lostRebooks;
    private int asks;

    /**
     * @param maxWait           the max wait in force for this call
     * @param configuredMaxWait the throttle's; more than {@code maxWait} when the call's timeout left it less
     * @param route             the route that chose the bucket, as logs name it (never the request's path: ids)
     */
    Booking(TokenBucket bucket, double cost, Duration maxWait, Duration configuredMaxWait, Priority priority,
        Duration horizon, String route) {
      this.bucket = bucket;
      this.route = route;
      this.cost = cost;
      this.priority = priority;
      this.maxWait = maxWait;
      this.configuredMaxWait = configuredMaxWait;
      this.horizon = horizon;
      this.askedAtNanos = time.nanoTime();
    }

    /** How far ahead the next ask may book: what is left of the max wait, within the class's horizon. */
    Duration askWait() {
      Duration left = leftToWait();
      return horizon != null && horizon.compareTo(left) < 0 ? horizon : left;
    }

    /**
     * Takes the bucket's answer to an ask of {@link #askWait()}. The slot in our clock: the bucket decided before its
     * answer reached this process, so answeredAt + wait is never early. answeredAt is taken on the I/O thread, not
     * when a thread got round to reading the answer: a thread starved of CPU after Redis answered (up to 400 ms on a
     * loaded 2-core machine) counts as late and rebooks, instead of leaving "on time" by its own reckoning with the
     * burst.
     *
     * @return true when booked ({@link #slotNanos()} is the slot); false when the class's horizon kept the call from
     *     booking a slot that is still within its max wait: then {@link #slotNanos()} is when to ask again
     * @throws ThrottleRefusedException when the bucket refused: the slot would be past the max wait
     */
    boolean booked(Acquisition a) throws ThrottleRefusedException {
      asks++;
      if (!a.granted()) {
        if (horizon != null && a.waitTime().compareTo(leftToWait()) <= 0) {
          metrics.deferred(bucket.name(), priority);
          slotNanos = a.answeredAtNanos() + a.waitTime().toNanos();
          return false;
        }
        metrics.refused(bucket.name(), priority);
        throw new ThrottleRefusedException(bucket.name(), a.waitTime(), maxWait, limit());
      }
      granted = a;
      slotNanos = a.answeredAtNanos() + a.waitTime().toNanos();
      return true;
    }

    Acquisition granted() {
      return granted;
    }

    /** The slot, on the {@link TimeSource}'s clock (or, after an ask the horizon deferred, when to ask again). */
    long slotNanos() {
      return slotNanos;
    }

    long askedAtNanos() {
      return askedAtNanos;
    }

    long lateNanos() {
      return lateNanos;
    }

    /** Whether the slot can no longer come: its state lost, or its rate cut since it was booked. */
    boolean voided() {
      return bucket.lost(granted) || bucket.superseded(granted);
    }

    /**
     * What a refused wait exceeded, in words: the max wait, or what the call's timeout left of it, or what is left of
     * either after the call has waited (a class with a horizon that asked again, a call that booked again).
     */
    private String limit() {
      String whole = maxWait.compareTo(configuredMaxWait) < 0
          ? "the " + maxWait.toMillis() + " ms its call timeout left it (max wait " + configuredMaxWait.toMillis()
              + " ms)"
          : "its max wait " + maxWait.toMillis() + " ms";
      long waitedMillis = TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - askedAtNanos);
      return asks <= 1 ? whole : "the " + leftToWait().toMillis() + " ms left of " + whole + " after "
          + waitedMillis + " ms" + (horizon != null ? " waiting to ask again within its " + priority + " horizon"
          : " of waiting");
    }

    /** What is left of the max wait, for a booking made again. */
    Duration leftToWait() {
      Duration left = maxWait.minusNanos(time.nanoTime() - askedAtNanos);
      return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * Whether the call must book again instead of leaving now, counting why: the provider refused a call and the
     * fleet's rate was cut since the slot was booked; the state that booked it was lost; or the call is more than
     * the late limit past its slot (at most {@link #MAX_REBOOKS} times). Otherwise it leaves, {@link #lateNanos()}
     * late.
     *
     * @throws BucketUnavailableException after {@link #MAX_REBOOKS} cuts, or one more lost state: not sent
     */
    boolean mustRebook() throws BucketUnavailableException {
      boolean lost = bucket.lost(granted);
      long late = time.nanoTime() - slotNanos;
      if (!lost && bucket.superseded(granted)) {
        // The slot belongs to the old rate (and may fall in the provider's Retry-After). Book again at the new one.
        // Nothing is given back: the cut reset the bucket.
        if (++cutRebooks > MAX_REBOOKS) {
          throw new BucketUnavailableException(bucket.name(), "the provider refused calls and the rate was cut "
              + cutRebooks + " times while this call waited; not sent", null);
        }
        metrics.superseded(bucket.name());
        return true;
      }
      if (lost) {
        // The new state does not know the slot, and leaving on it could join the new state's full burst. Book
        // again, in the new state. The lost tokens are not given back: there is nothing to give them back to.
        if (++lostRebooks > MAX_REBOOKS) {
          throw new BucketUnavailableException(bucket.name(), "its state was lost " + lostRebooks
              + " times while this call waited; not sent", null);
        }
        stateLost(bucket.name());
        return true;
      }
      if (late > lateLimitNanos && lateRebooks < MAX_REBOOKS) {
        // Woke too late: leaving now could bunch with the calls booked right after us and breach the provider's
        // bucket. Book a fresh slot after them instead. The missed slot is not given back (conservative).
        lateRebooks++;
        metrics.rebooked(bucket.name());
        return true;
      }
      lateNanos = late;
      return false;
    }
  }

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
      throw new InterruptedIOException("interrupted while waiting for its slot; not sent");
    } catch (InterruptedIOException e) {
      giveBack(booking.bucket, booking.cost);
      throw e;
    }
  }

  private static void checkCanceled(BooleanSupplier canceled) throws InterruptedIOException {
    if (canceled.getAsBoolean()) {
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
