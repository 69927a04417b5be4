package io.pixquota.throttle;

import io.pixquota.throttle.internal.Async;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request's slot, booked and waited for without a thread ({@link Throttle#book}): the bucket is asked with its
 * async operation, the wait happens on the process's one timer thread, the slot is checked again when it comes (late,
 * its state lost, its rate cut: then it books again), and only then is it handed to the caller, who sends with
 * {@link Throttle#send}. A class with a horizon ({@link Priority#BATCH}) stands in its bucket's line first, so that one
 * of its callers asks at a time, and asks again later, holding nothing, when no slot is free within its horizon.
 *
 * <p>Where a booking is ({@code state}), and what moves it:
 * <table>
 *   <caption>transitions</caption>
 *   <tr><th>from</th><th>event</th><th>to</th></tr>
 *   <tr><td>NEW</td><td>{@link #start} (no horizon)</td><td>ASKING</td></tr>
 *   <tr><td>NEW</td><td>{@link #start} (a horizon)</td><td>QUEUED</td></tr>
 *   <tr><td>QUEUED</td><td>the call before it in line booked or gave up</td><td>ASKING</td></tr>
 *   <tr><td>QUEUED</td><td>its max wait ended in line</td><td>DONE (refused)</td></tr>
 *   <tr><td>ASKING</td><td>the bucket booked a slot</td><td>WAITING</td></tr>
 *   <tr><td>ASKING</td><td>no slot within the horizon, one within the max wait</td><td>DEFERRED</td></tr>
 *   <tr><td>ASKING</td><td>refused, or the bucket failed</td><td>DONE (failed)</td></tr>
 *   <tr><td>DEFERRED</td><td>the time to ask again came</td><td>ASKING</td></tr>
 *   <tr><td>WAITING</td><td>the slot came and is good</td><td>DUE (the caller has the {@link Slot})</td></tr>
 *   <tr><td>WAITING</td><td>the slot came and went bad</td><td>ASKING</td></tr>
 *   <tr><td>DUE</td><td>{@link #missed}: the send found the slot gone bad</td><td>ASKING</td></tr>
 *   <tr><td>QUEUED, DEFERRED, WAITING</td><td>{@link #cancel}</td><td>DONE (cancelled; a booked slot's tokens are
 *       given back)</td></tr>
 *   <tr><td>ASKING</td><td>{@link #cancel}</td><td>DONE when the bucket answers</td></tr>
 * </table>
 * Leaving ASKING or DEFERRED lets the next caller of its class's line ask. Callbacks run on the thread of the event
 * (the store's I/O thread, the timer, the canceller), never under a lock: {@code onDue} must not block, and hands the
 * send to the client; {@code onFailure} is called at most once. Threadsafe.
 */
public final class AsyncBooking {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncBooking.class);

  private enum State { NEW, QUEUED, ASKING, DEFERRED, WAITING, DUE, DONE }

  private final Booking booking;
  private final SlotWaits waits;
  private volatile boolean canceled;
  private State state = State.NEW; // guarded by this
  private Consumer<Slot> onDue;
  private Consumer<IOException> onFailure;
  private Future<?> timer;
  private Future<?> queuedUntil; // a QUEUED call's max wait
  private CompletableFuture<Void> turn; // while it asks in its class's line: done passes the turn on
  private Slot handed;

  AsyncBooking(Booking booking, SlotWaits waits) {
    this.booking = booking;
    this.waits = waits;
  }

  /**
   * Asks for the slot: {@code onDue} gets it when it has come (again after each {@link #missed}), or
   * {@code onFailure} the reason there is none: {@link ThrottleRefusedException}, {@link BucketUnavailableException},
   * an {@link InterruptedIOException} when cancelled.
   *
   * @throws IllegalStateException when started before
   */
  public void start(Consumer<Slot> onDue, Consumer<IOException> onFailure) {
    Objects.requireNonNull(onDue, "onDue cannot be null");
    Objects.requireNonNull(onFailure, "onFailure cannot be null");
    boolean queue = false;
    boolean canceledFirst = false;
    synchronized (this) {
      if (state != State.NEW) {
        throw new IllegalStateException("already started");
      }
      this.onDue = onDue;
      this.onFailure = onFailure;
      if (canceled) {
        to(State.DONE);
        canceledFirst = true;
      } else {
        queue = booking.horizon != null;
        to(queue ? State.QUEUED : State.ASKING);
      }
    }
    if (canceledFirst) {
      onFailure.accept(new InterruptedIOException("call canceled before it asked for its slot; not sent"));
    } else if (queue) {
      queue();
    } else {
      ask();
    }
  }

  /** The priority class the booking asks in. */
  public Priority priority() {
    return booking.priority;
  }

  /** Sets the state; a call that leaves its class's line (booked, or done) lets the next one ask. */
  private void to(State next) {
    state = next;
    if (turn != null && next != State.ASKING && next != State.DEFERRED) {
      CompletableFuture<Void> mine = turn;
      turn = null;
      mine.complete(null);
    }
  }

  /** Joins its class's line on the bucket; refused if its max wait ends there. */
  private void queue() {
    AskingLine.Place place = waits.line().join(booking.bucket);
    synchronized (this) {
      if (state == State.QUEUED) {
        queuedUntil = waits.time().schedule(this::queuedTooLong, booking.askedAtNanos() + booking.maxWait.toNanos());
      }
    }
    place.before().whenComplete((ignored, failure) -> takeTurn(place.mine()));
  }

  /** The call before it in line has booked or given up: ask, unless this one gave up meanwhile. */
  private void takeTurn(CompletableFuture<Void> mine) {
    synchronized (this) {
      if (state != State.QUEUED) {
        mine.complete(null); // cancelled or out of time while in line: the next one asks
        return;
      }
      if (queuedUntil != null) {
        queuedUntil.cancel(false);
      }
      turn = mine;
      to(State.ASKING);
    }
    ask();
  }

  /** Its max wait ended while it was in line: refused, never sent, nothing booked. */
  private void queuedTooLong() {
    synchronized (this) {
      if (state != State.QUEUED) {
        return;
      }
      to(State.DONE);
    }
    waits.metrics().refused(booking.bucket.name(), booking.priority);
    onFailure.accept(ThrottleRefusedException.queuedTooLong(booking.bucket.name(), booking.priority,
        booking.maxWait));
  }

  /** Asks the bucket for a slot without blocking; its answer comes on the store's I/O thread. */
  private void ask() {
    synchronized (this) {
      if (state != State.ASKING) {
        return;
      }
    }
    try {
      booking.bucket.acquireAsync(booking.cost, booking.askWait()).whenComplete(this::answered);
    } catch (RuntimeException e) {
      fail(new IOException("could not ask bucket '" + booking.bucket.name() + "' for a slot: " + e.getMessage(), e));
    }
  }

  /** The bucket answered: wait for the slot on the timer, or fail. On the store's thread: nothing here blocks. */
  private void answered(Acquisition a, Throwable failure) {
    if (failure != null) {
      Throwable cause = Async.cause(failure);
      if (cause instanceof BucketUnavailableException) {
        waits.metrics().redisError(booking.bucket.name());
      }
      fail(cause instanceof IOException io ? io : new IOException("bucket '" + booking.bucket.name() + "' failed: "
          + cause, cause));
      return;
    }
    IOException failed = null;
    boolean giveBack = false;
    synchronized (this) {
      if (state != State.ASKING) {
        return;
      }
      try {
        if (!booking.take(a)) { // no slot within its class's horizon: ask again when the bucket said one is free
          if (canceled) {
            to(State.DONE);
            failed = new InterruptedIOException("call canceled while waiting to ask for its slot; not sent");
          } else {
            to(State.DEFERRED);
            timer = waits.time().schedule(this::askAgain, booking.slotNanos());
          }
        } else if (canceled) {
          to(State.DONE);
          giveBack = true;
          failed = new InterruptedIOException("call canceled while waiting for its slot; not sent");
        } else {
          to(State.WAITING);
          timer = waits.time().schedule(this::due, booking.slotNanos());
        }
      } catch (ThrottleRefusedException refused) {
        to(State.DONE);
        failed = refused;
      }
    }
    if (giveBack) {
      giveBack();
    }
    if (failed != null) {
      onFailure.accept(failed);
    }
  }

  /** The time to ask again has come (on the timer thread). */
  private void askAgain() {
    synchronized (this) {
      if (state != State.DEFERRED) {
        return;
      }
      to(State.ASKING);
    }
    ask();
  }

  /** The slot has come (on the timer thread): check it again, then book again or hand it over. */
  private void due() {
    Slot slot = null;
    IOException failed = null;
    synchronized (this) {
      if (state != State.WAITING) {
        return;
      }
      if (booking.slotNanos() - waits.time().nanoTime() > 0) {
        timer = waits.time().schedule(this::due, booking.slotNanos()); // woke early
        return;
      }
      try {
        if (booking.checkBeforeLeaving()) {
          to(State.ASKING);
        } else {
          slot = new Slot(booking, waits);
          handed = slot;
          to(State.DUE);
        }
      } catch (BucketUnavailableException e) {
        to(State.DONE);
        failed = e;
      }
    }
    if (failed != null) {
      onFailure.accept(failed);
    } else if (slot == null) {
      ask();
    } else {
      onDue.accept(slot);
    }
  }

  /**
   * The send of {@code slot} found it gone bad ({@link SlotMissedException}): nothing was sent; the booking asks
   * again, without a thread, and {@code onDue} gets the new slot.
   *
   * @return false when it will not (cancelled meanwhile, or not its current slot): report the failure yourself
   */
  public boolean missed(Slot slot) {
    synchronized (this) {
      if (state != State.DUE || handed != slot || canceled) {
        return false;
      }
      handed = null;
      to(State.ASKING);
    }
    ask();
    return true;
  }

  private void fail(IOException e) {
    synchronized (this) {
      if (state == State.DONE || state == State.DUE) {
        return;
      }
      to(State.DONE);
    }
    onFailure.accept(e);
  }

  /** Gives the booked tokens back, without waiting for the store. */
  private void giveBack() {
    TokenBucket bucket = booking.bucket;
    try {
      bucket.refundAsync(booking.cost).whenComplete((left, failure) -> {
        if (failure != null) {
          LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", bucket.name(), booking.cost,
              Async.cause(failure).toString());
        }
      });
    } catch (RuntimeException e) {
      LOG.debug("Bucket '{}': could not give back {} tokens of an unsent call: {}", bucket.name(), booking.cost,
          e.toString());
    }
  }

  /**
   * Cancels the booking before its send: a booked slot's tokens are given back, and {@code onFailure} gets an
   * {@link InterruptedIOException}. Once the slot is handed over, the caller cancels its own send.
   *
   * @return whether the booking was still before its send
   */
  public boolean cancel() {
    IOException failed = null;
    boolean giveBack = false;
    boolean before;
    synchronized (this) {
      canceled = true;
      before = state != State.DUE && state != State.DONE;
      if (state == State.WAITING) {
        timer.cancel(false);
        to(State.DONE);
        giveBack = true;
        failed = new InterruptedIOException("call canceled while waiting for its slot; not sent");
      } else if (state == State.DEFERRED || state == State.QUEUED) { // nothing booked: nothing to give back
        Future<?> pending = state == State.DEFERRED ? timer : queuedUntil;
        if (pending != null) {
          pending.cancel(false);
        }
        to(State.DONE);
        failed = new InterruptedIOException("call canceled while waiting to ask for its slot; not sent");
      }
    }
    if (giveBack) {
      giveBack();
    }
    if (failed != null) {
      onFailure.accept(failed);
    }
    return before;
  }

  /** Whether {@link #cancel} was called. */
  public boolean isCanceled() {
    return canceled;
  }
}
