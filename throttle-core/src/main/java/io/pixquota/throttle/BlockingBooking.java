package io.pixquota.throttle;

import io.pixquota.throttle.support.Async;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * An {@link AsyncBooking} waited for on the caller's thread: the booking asks the store with its async operation
 * (one command, sent in the order the calls asked, not one Redis connection per waiting thread) and waits on the
 * process's timer; the caller's thread parks until the slot has come, without polling: a virtual thread unmounts from
 * its carrier, a platform thread sleeps. Blocking callers thus book, line up and leave exactly as async ones do, and
 * hold nothing but their parked thread while they wait: no connection to the provider (the caller opens one only
 * once it has its slot) and no Redis connection.
 *
 * <p>An interrupt while parked cancels the booking (its tokens given back, nothing sent) and throws an
 * {@link InterruptedIOException} with the thread's flag set; so does {@link AsyncBooking#cancel} from any thread.
 * One thread waits on a booking at a time. Threadsafe otherwise.
 */
public final class BlockingBooking {
  private final AsyncBooking booking;
  // the slot handed over, or the IOException the booking ended with: completed normally either way, so that a refusal
  // (a retry storm's every call) costs no ExecutionException
  private volatile CompletableFuture<Object> next = new CompletableFuture<>();
  private volatile Slot handed; // the slot last handed over, in its bucket's leaving line until it leaves

  private BlockingBooking(AsyncBooking booking) {
    this.booking = booking;
  }

  /** Waits for {@code booking}'s slots on the caller's thread; it must not have been started. */
  public static BlockingBooking of(AsyncBooking booking) {
    return new BlockingBooking(Objects.requireNonNull(booking, "booking cannot be null"));
  }

  /** The booking waited for: {@link AsyncBooking#cancel} ends the wait. */
  public AsyncBooking booking() {
    return booking;
  }

  /**
   * Starts the booking and parks until its slot has come; send on it at once ({@link Throttle#send}, or a transport
   * whose interceptor does).
   *
   * @throws ThrottleRefusedException   when the slot is further than the max wait
   * @throws BucketUnavailableException when the bucket cannot be reached and no local fallback takes the call
   * @throws InterruptedIOException     when interrupted or cancelled while waiting (nothing sent)
   * @throws IllegalStateException      when the booking was started before
   */
  public Slot await() throws IOException {
    booking.start(this::due, this::failed);
    return park();
  }

  /**
   * The send found {@code missed} gone bad ({@link SlotMissedException}, nothing sent): books again and parks until
   * the new slot, as {@link #await} does.
   *
   * @throws InterruptedIOException when the booking was cancelled meanwhile
   */
  public Slot awaitAgain(Slot missed) throws IOException {
    next = new CompletableFuture<>(); // before the booking asks again: its answer completes this one
    if (!booking.missed(missed)) {
      throw SlotWaits.canceledWhile(false);
    }
    return park();
  }

  private void due(Slot slot) {
    // a permit's holder leaves at once: its permit's time is the pool's, and the pool's line keeps its own order
    if (slot.booking().pool == null) {
      slot.holdPlace(booking.waits.leaving().due(slot.booking()));
    }
    handed = slot;
    next.complete(slot);
  }

  /**
   * This thread has its slot: it lets the callers of its bucket whose slots came before its own leave first
   * ({@link LeavingOrder}: until they are sent, or half the late limit after its slot). It keeps its own place until
   * it is sent ({@link Throttle#send}) or its call ends ({@link Slot#ended}): those behind it wait for its send, not
   * for its thread to wake, so that a thread held on the way (a gate, a connection, a core) is not passed.
   */
  private void passInOrder(Slot slot) {
    LeavingOrder.Ticket t = slot.place();
    if (t != null) {
      booking.waits.leaving().pass(t, booking.waits, t.slotNanos + booking.waits.lateLimitNanos() / 2);
    }
  }

  /** The slot handed over is not used (interrupted, cancelled): it leaves the line. */
  private void dropTicket() {
    Slot slot = handed;
    if (slot != null) {
      slot.leaveLine();
    }
  }

  private void failed(IOException e) {
    next.complete(e);
  }

  /**
   * Parks until the slot, then checks it at once: a thread that woke later than the late limit (its carrier or CPU
   * busy), or whose slot went bad meanwhile, waits again here (its slot moved by a cut, or booked again), before its
   * caller takes a connection for nothing.
   */
  private Slot park() throws IOException {
    CompletableFuture<Object> waiting = next;
    try {
      while (true) {
        Object due = waiting.get();
        if (due instanceof IOException failure) {
          throw failure;
        }
        Slot slot = (Slot) due;
        passInOrder(slot);
        if (!slot.booking().checkBeforeLeaving()) {
          return slot;
        }
        slot.leaveLine(); // waits again: not sent
        next = new CompletableFuture<>();
        if (!booking.missed(slot)) {
          throw SlotWaits.canceledWhile(false);
        }
        waiting = next;
      }
    } catch (InterruptedException e) {
      if (!booking.cancel() && waiting.getNow(null) instanceof Slot handedOver) {
        booking.missed(handedOver); // handed over as the thread was interrupted: not sent, its permit goes back
      }
      dropTicket(); // after the cancel: a slot handed over meanwhile took its ticket before its future completed
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for its slot; not sent");
    } catch (ExecutionException e) {
      throw new IOException(Async.cause(e)); // nothing completes it exceptionally: a bug, said as such
    }
  }
}
