package io.pixquota.throttle;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A slot an {@link AsyncBooking} booked and waited for, handed to its caller when it has come: send the request with
 * {@link Throttle#send} (once; a transport's own retry books afresh). Opaque otherwise. Threadsafe.
 */
public final class Slot {
  private final Booking booking;
  private final SlotWaits waits;
  private final AtomicBoolean claimed = new AtomicBoolean();

  Slot(Booking booking, SlotWaits waits) {
    this.booking = booking;
    this.waits = waits;
  }

  /** True the first time only: whether the caller may send on this slot (a second send books its own). */
  public boolean claim() {
    return claimed.compareAndSet(false, true);
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
