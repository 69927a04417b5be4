package io.pixquota.throttle;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Where an {@link AsyncBooking} is, and the moves between its states; the line of its class it stands in first.
 * The steps that make the moves (asking, the store's answers, the timer, a cancel) are {@link AsyncBooking}'s.
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
 * Guarded by the booking's monitor.
 */
abstract class AsyncState {
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

  AsyncState(Booking booking, SlotWaits waits) {
    this.booking = booking;
    this.waits = waits;
  }

  ThrottleMetrics metrics() {
    return waits.metrics();
  }

  /** Asks the bucket for a slot without blocking (the booking's step). */
  abstract void ask();

  /** The slot has come, on the timer (the booking's step). */
  abstract void due();

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
}
