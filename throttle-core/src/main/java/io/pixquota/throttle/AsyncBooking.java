package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.support.Async;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One request's slot, booked and waited for without a thread ({@link Throttle#book}): asked with the bucket's async
 * operation, waited for on the process's one timer thread, checked again when it comes (late, its state lost, its rate
 * cut: booked again), then handed to the caller, who sends with {@link Throttle#send}. A class with a horizon
 * ({@link Priority#BATCH}) stands in its bucket's line first, and asks again later, holding nothing, when no slot is
 * free within its horizon.
 *
 * <p>Where a booking is ({@code state}), and what moves it:
 * <pre>
 * from                      event                                           to
 * NEW                       start (a class with a horizon: QUEUED first)    ASKING
 * QUEUED                    the call before it in line booked or gave up    ASKING
 * QUEUED                    its max wait ended in line                      DONE, refused
 * ASKING                    booked / no slot within the horizon / refused   WAITING / DEFERRED / DONE
 * ASKING                    a pool's permit: not its turn yet               PERMIT
 * PERMIT                    its turn may have come / max wait ended         ASKING / DONE, refused
 * ASKING                    the store unreachable, time left (failover)      DEFERRED (asks again 0.1-1 s later)
 * DEFERRED                  the time to ask again came                      ASKING
 * WAITING                   the slot came: good / gone bad                  DUE (the caller has the Slot) / ASKING
 * DUE                       missed: the send found the slot gone bad        ASKING
 * QUEUED DEFERRED WAITING   cancel (a booked slot's tokens given back)      DONE, cancelled
 * PERMIT                    cancel (its place in the pool's line left)      DONE, cancelled
 * ASKING                    cancel                                          DONE, when the bucket answers
 * </pre>
 * The state is guarded by the booking's monitor. A permit (a route with a pool) is taken
 * with the slot, kept while the booking asks again after a miss, and given back when the booking ends without a send
 * (DONE) or holds off (DEFERRED); once the slot is handed over, the send gives it back after the answer. Leaving ASKING
 * or DEFERRED lets the next caller of its class's line ask. Callbacks run on the thread of the event (the store's I/O
 * thread, the timer, the canceller), never under a lock: {@code onDue} must not block, and hands the send to the
 * client; {@code onFailure} is called at most once. Threadsafe.
 */
public final class AsyncBooking {
  enum State { NEW, QUEUED, ASKING, PERMIT, DEFERRED, WAITING, DUE, DONE }

  final Booking booking;
  final SlotWaits waits;
  volatile boolean canceled;
  State state = State.NEW; // guarded by this
  Consumer<Slot> onDue;
  Consumer<IOException> onFailure;
  Future<?> timer;
  /** The timer of a booking handed over on the thread that booked it (a permit's grant whose slot had come). */
  static final Future<?> NO_TIMER = CompletableFuture.completedFuture(null);
  LinePlace line; // a class with a horizon: its place in its bucket's line
  int storeRetries; // asks made again after the store could not be reached (guarded by this)
  Slot handed;

  AsyncBooking(Booking booking, SlotWaits waits) {
    this.booking = booking;
    this.waits = waits;
  }

  ThrottleMetrics metrics() {
    return waits.metrics();
  }

  /** The time to ask again has come (on the timer thread). */
  void askAgain() {
    if (moved(State.DEFERRED, State.ASKING)) {
      ask();
    }
  }

  /** Its slot moved ({@link AskOrderTrades}, under this monitor, WAITING): its timer follows. */
  void retimed() {
    timer.cancel(false);
    timer = waits.time().schedule(this::due, booking.slotNanos());
  }

  /** Sets the state; a call that leaves its class's line (booked, or done) lets the next one ask. */
  void to(State next) {
    state = next;
    if (line != null && next != State.ASKING && next != State.DEFERRED && next != State.QUEUED) {
      line.leave();
    }
  }

  /** Joins its class's line on the bucket; refused if its max wait ends there. */
  void queue() {
    LinePlace place = LinePlace.join(waits, booking);
    synchronized (this) {
      line = place;
    }
    place.await(waits, booking, this::takeTurn, this::queuedTooLong);
  }

  /** The call before it in line has booked or given up: ask, unless this one gave up meanwhile. */
  private void takeTurn() {
    synchronized (this) {
      if (line == null || state != State.QUEUED) {
        if (line != null) {
          line.pass(); // cancelled or out of time while in line: the next one asks
        }
        return;
      }
      line.take();
      to(State.ASKING);
    }
    ask();
  }

  /** Its max wait ended while it was in line: refused, never sent, nothing booked. */
  private void queuedTooLong() {
    if (!moved(State.QUEUED, State.DONE)) {
      return;
    }
    waits.metrics().refused(booking.bucket.name(), booking.priority);
    onFailure.accept(ThrottleRefusedException.queuedTooLong(booking.bucket.name(), booking.priority,
        booking.maxWait));
  }

  /** Moves from {@code from} to {@code to}, if the booking is still in {@code from}. */
  synchronized boolean moved(State from, State next) {
    if (state != from) {
      return false;
    }
    to(next);
    return true;
  }

  synchronized boolean released() {
    return state == State.DEFERRED || state == State.DONE;
  }

  /**
   * Asks for the slot: {@code onDue} gets it when it has come (again after each {@link #missed}), or {@code onFailure}
   * why there is none ({@link ThrottleRefusedException}, {@link BucketUnavailableException}, an
   * {@link InterruptedIOException} when cancelled). Throws {@link IllegalStateException} when started before.
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
      this.onFailure = e -> {
        booking.observed.failed(e, waits.time().nanoTime());
        onFailure.accept(e instanceof StoreUnavailableException store ? BucketUnavailableException.of(store) : e);
      };
      if (canceled) {
        to(State.DONE);
        canceledFirst = true;
      } else {
        queue = booking.horizon != null;
        to(queue ? State.QUEUED : State.ASKING);
      }
    }
    if (canceledFirst) {
      this.onFailure.accept(new InterruptedIOException("call canceled before it asked for its slot; not sent"));
    } else if (queue) {
      queue();
    } else {
      ask();
    }
  }

  /**
   * Asks the bucket for a slot without blocking; its answer comes on the store's I/O thread. A slot a cut of the rate
   * moved ({@link Booking#takeRetimed}) is waited for as it is, with no round trip.
   */
  /** Asks the bucket for a slot without blocking. */
  void ask() {
    if (!moved(State.ASKING, State.ASKING)) {
      return;
    }
    if (booking.takeRetimed()) {
      waitMoved();
      return;
    }
    try {
      if (booking.needsPermit()) {
        booking.pool.takeAsync(booking.waiter, booking.slotAsk()).whenComplete((answer, failure) ->
            AsyncPermit.answered(this, booking, answer, failure));
      } else {
        booking.bucket.acquireAsync(booking.cost, booking.askWait(), booking.askOrder).whenComplete(this::answered);
      }
    } catch (RuntimeException e) {
      fail(new IOException("could not ask bucket '" + booking.bucket.name() + "' for a slot: " + e.getMessage(), e));
    }
  }

  /**
   * Its slot moved to the new rate after a cut: wait for it on the timer, as after a booking, unless it is now past
   * what is left of the max wait (refused, its tokens given back) or the call was cancelled meanwhile.
   */
  private void waitMoved() {
    IOException failed = null;
    boolean giveBack = false;
    synchronized (this) {
      if (state != State.ASKING) {
        return;
      }
      if (canceled) {
        to(State.DONE);
        giveBack = true;
        failed = SlotWaits.canceledWhile(true);
      } else if (booking.slotNanos() - booking.askedAtNanos() > booking.maxWait.toNanos()) {
        to(State.DONE);
        giveBack = true;
        failed = booking.movedTooFar();
      } else {
        to(State.WAITING);
        timer = waits.time().schedule(this::due, booking.slotNanos());
      }
    }
    ended(failed, giveBack);
  }

  /** The pool's answer is a place in line: wait for its turn, or end (cancelled, out of time, refused at once). */
  void waitForPermit(int ahead, Duration firstBackIn) {
    IOException failed = null;
    boolean wait = false;
    synchronized (this) {
      if (state != State.ASKING) {
        return;
      }
      if (canceled) {
        to(State.DONE);
        failed = SlotWaits.canceledWhile(false);
      } else if (firstBackIn != null || booking.leftToWait().isZero()) {
        to(State.DONE);
        waits.metrics().permits().refusedCall(booking.pool, booking.priority);
        failed = firstBackIn == null ? ThrottleRefusedException.noPermit(booking.pool.name(), ahead, booking.maxWait)
            : ThrottleRefusedException.noPermitInTime(booking.pool.name(), ahead, firstBackIn, booking.leftToWait(),
                booking.maxWait);
      } else {
        to(State.PERMIT);
        wait = true;
      }
    }
    if (wait) {
      booking.pool.turn(booking.waiter, booking.leftToWait()).whenComplete((v, e) -> {
        if (moved(State.PERMIT, State.ASKING)) {
          ask();
        }
      });
    } else {
      booking.pool.leave(booking.waiter);
      onFailure.accept(failed);
    }
  }

  /** The bucket answered: wait for the slot on the timer, or fail. On the store's thread: nothing here blocks. */
  void answered(Acquisition a, Throwable failure) {
    if (failure != null) {
      Throwable cause = Async.cause(failure);
      if (cause instanceof StoreUnavailableException store) {
        waits.metrics().redisError(booking.bucket.name());
        if (store.passing() && askLater()) {
          return; // a failover or a restart under way: asked again within the max wait, holding nothing
        }
      }
      fail(cause instanceof IOException io ? io : new IOException("bucket '" + booking.bucket.name() + "' failed: "
          + cause, cause));
      return;
    }
    IOException failed = null;
    boolean giveBack = false;
    boolean dueNow = false;
    synchronized (this) {
      if (state != State.ASKING) {
        return;
      }
      try {
        if (!booking.take(a)) { // no slot within its class's horizon: ask again when the bucket said one is free
          if (canceled) {
            to(State.DONE);
            failed = SlotWaits.canceledWhile(false);
          } else {
            to(State.DEFERRED);
            timer = waits.time().schedule(this::askAgain, booking.slotNanos());
          }
        } else if (canceled) {
          to(State.DONE);
          giveBack = true;
          failed = SlotWaits.canceledWhile(true);
        } else {
          to(State.WAITING); // a permit's grant whose slot has come goes on this thread, not the timer's
          dueNow = booking.pool != null && booking.slotNanos() - waits.time().nanoTime() <= 0;
          timer = dueNow ? NO_TIMER : waits.time().schedule(this::due, booking.slotNanos());
        }
      } catch (ThrottleRefusedException refused) {
        to(State.DONE);
        failed = refused;
      }
    }
    ended(failed, giveBack);
    waits.trades().booked(this); // waiting: its slot in the order its call was asked
    if (dueNow) {
      due();
    }
  }

  /**
   * The store could not be reached, or a failover is under way: asks again later (after 100 ms, doubling up to 1 s),
   * holding nothing meanwhile (DEFERRED), when the max wait leaves time for it; a Sentinel's promotion or a Cluster's
   * takes a few seconds, and a call that can wait that long is served after it.
   *
   * @return false when it will not: no time left, or cancelled (the caller reports the failure)
   */
  private boolean askLater() {
    synchronized (this) {
      if (state != State.ASKING || canceled) {
        return state != State.ASKING; // not this ask's to end (cancelled meanwhile: its caller hears of the cancel)
      }
      long backOffNanos = TimeUnit.MILLISECONDS.toNanos(Math.min(1000, 100L << Math.min(4, storeRetries)));
      if (booking.leftToWait().toNanos() <= backOffNanos) {
        return false;
      }
      storeRetries++;
      to(State.DEFERRED);
      timer = waits.time().schedule(this::askAgain, waits.time().nanoTime() + backOffNanos);
    }
    booking.releasePermit();
    return true;
  }

  /** Outside the lock: gives a booked slot's tokens back (without waiting for the store), then reports the end. */
  private void ended(IOException failed, boolean giveBack) {
    if (giveBack) {
      SlotWaits.giveBackAsync(booking.bucket, booking.cost);
    }
    if (failed != null || released()) {
      booking.releasePermit(); // ended without a send, or holding off until it asks again: holds nothing
    }
    if (failed != null) {
      onFailure.accept(failed);
    }
  }

  /** The slot has come (on the timer thread): check it again, then book again or hand it over. */
  void due() {
    Slot slot = null;
    synchronized (this) {
      if (state != State.WAITING) {
        return;
      }
      if (booking.slotNanos() - waits.time().nanoTime() > 0) {
        timer = waits.time().schedule(this::due, booking.slotNanos()); // woke early
        return;
      }
      if (booking.checkBeforeLeaving()) {
        to(State.ASKING);
      } else {
        slot = new Slot(booking, waits);
        handed = slot;
        to(State.DUE);
      }
    }
    if (slot == null) {
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
    boolean release = false;
    boolean again = false;
    synchronized (this) {
      if (state != State.DUE || handed != slot || canceled) {
        release = handed == slot; // its send will not happen: the permit goes back
      } else {
        handed = null;
        to(State.ASKING);
        again = true;
      }
    }
    if (release) {
      booking.releasePermit();
    }
    if (again) {
      ask();
    }
    return again;
  }

  void fail(IOException e) {
    synchronized (this) {
      if (state == State.DONE || state == State.DUE) {
        return;
      }
      to(State.DONE);
    }
    booking.releasePermit();
    onFailure.accept(e);
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
    boolean leave = false;
    synchronized (this) {
      canceled = true;
      before = state != State.DUE && state != State.DONE;
      if (state == State.PERMIT) {
        leave = true;
        failed = SlotWaits.canceledWhile(false);
        to(State.DONE);
      } else if (state == State.WAITING || state == State.DEFERRED || state == State.QUEUED) {
        giveBack = state == State.WAITING; // DEFERRED, QUEUED: nothing booked, nothing to give back
        if (state != State.QUEUED) {
          timer.cancel(false);
        }
        failed = SlotWaits.canceledWhile(giveBack);
        to(State.DONE);
      }
    }
    if (leave) {
      booking.pool.leave(booking.waiter);
    }
    ended(failed, giveBack);
    return before;
  }

  /**
   * Whether the call's max wait ends within the late limit: a client's timeout that set it (what the call timeout
   * left when it asked) fires about then, and the booking's own timer refuses the call.
   */
  boolean outOfTime() {
    return booking.leftToWait().toNanos() <= waits.lateLimitNanos();
  }

  /** Whether {@link #cancel} was called. */
  public boolean isCanceled() {
    return canceled;
  }
}
