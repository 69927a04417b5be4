package io.pixquota.throttle;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A slot an {@link AsyncBooking} booked and waited for, handed to its caller when it has come: send the request with
 * {@link Throttle#send} (once; a transport's own retry books afresh), and tell it {@link #ended} when the call is over.
 * Opaque otherwise. Threadsafe.
 */
public final class Slot {
  private final Booking booking;
  private final SlotWaits waits;
  private final AtomicBoolean claimed = new AtomicBoolean();
  private volatile boolean failed; // its send failed without an answer
  // a blocking caller's place among those of its bucket whose slots have come, until it leaves (LeavingOrder)
  private final AtomicReference<LeavingOrder.Ticket> place = new AtomicReference<>();

  Slot(Booking booking, SlotWaits waits) {
    this.booking = booking;
    this.waits = waits;
  }

  /** True the first time only: whether the caller may send on this slot (a second send books its own). */
  public boolean claim() {
    return claimed.compareAndSet(false, true);
  }

  /**
   * The call this slot was handed to is over. When it was never sent on the slot ({@link Throttle#send} never claimed
   * it: its connection could not be made, it was cancelled or timed out before its send, or a cache answered it), the
   * slot's permit goes back now, not at its lease, and its wait is recorded as ended by {@code failure} (null: it was
   * answered). A slot sent on has nothing to do here: its send settled it. Either way, the blocking callers whose
   * slots came after its own no longer wait for it to leave. Call it once the call has ended, never while its send
   * may still claim the slot.
   *
   * @return whether the slot was never sent on
   */
  public boolean ended(Throwable failure) {
    leaveLine();
    if (!claimed.compareAndSet(false, true)) {
      return false;
    }
    long now = waits.time().nanoTime();
    if (failure == null) {
      booking.observed.left(now);
    } else {
      booking.observed.failed(failure, now);
    }
    booking.releasePermit();
    return true;
  }

  /**
   * Whether the send on this slot failed without an answer (its connection broke under it): a transport that retries
   * it needs a slot of its own for the retry, whereas a follow-up of an answer (a redirect, new credentials) does not
   * come from a failed send.
   */
  public boolean failedWithoutAnswer() {
    return failed;
  }

  /** Holds {@code ticket}, its place in its bucket's {@link LeavingOrder}, until it leaves. */
  void holdPlace(LeavingOrder.Ticket ticket) {
    place.set(ticket);
  }

  /** The place it holds in its bucket's {@link LeavingOrder}, or null. */
  LeavingOrder.Ticket place() {
    return place.get();
  }

  /** It leaves (sent, found gone bad, given up, or its call ended): the callers behind it in the line may go. */
  void leaveLine() {
    LeavingOrder.Ticket t = place.getAndSet(null);
    if (t != null) {
      waits.leaving().leave(t);
    }
  }

  void sendFailed() {
    failed = true;
  }

  /** How long ago, on the throttle's clock, the call first asked for a slot: what its timeout has left. */
  public long waitedNanos() {
    return waits.time().nanoTime() - booking.askedAtNanos();
  }

  /** Whether {@code throttle} booked this slot. */
  public boolean bookedBy(Throttle throttle) {
    return throttle != null && throttle.owns(this);
  }

  Booking booking() {
    return booking;
  }

  SlotWaits waits() {
    return waits;
  }

  @Override
  public String toString() {
    return "Slot{bucket=" + booking.bucket.name() + ", " + booking.priority + "}";
  }
}
