package io.pixquota.throttle;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Blocking callers of one bucket leave in the order of their slots. The timer hands each slot over in order, but a
 * parked thread gets a core when the scheduler gives it one: of two threads woken for adjacent slots, the later one
 * may run first (thousands of platform threads, a collector's pause that ends with several slots come at once), and
 * a thread on its way to the send may be held (the HTTP client's gate, its connection, a core). A slot handed to a
 * blocking caller takes a ticket in its bucket's line ({@link #due}), which it holds until it is sent, found gone
 * bad, or its call ends ({@link #leave}, through {@link Slot#leaveLine}); its thread, once woken, waits while a
 * ticket ahead of its own is still there, up to a deadline ({@link #pass}): half the late limit after its slot, so
 * that the wait never makes it book again. A permit's holder takes no ticket: its permit is held meanwhile, and the
 * pool's line orders its calls. Threadsafe; a line holds only the slots that have come and whose calls have not left
 * yet, a handful, and goes when it is empty; a ticket left behind goes once its slot is past the late limit.
 */
final class LeavingOrder {
  private static final Comparator<Ticket> IN_ORDER = Comparator.<Ticket>comparingLong(t -> t.slotNanos)
      .thenComparingLong(t -> t.askOrder);

  /** A slot that has come, handed to its blocking caller; its thread has not left yet. */
  static final class Ticket {
    final String bucket;
    final long slotNanos;
    final long askOrder;
    volatile Thread waiting;

    private Ticket(String bucket, long slotNanos, long askOrder) {
      this.bucket = bucket;
      this.slotNanos = slotNanos;
      this.askOrder = askOrder;
    }
  }

  private final Map<String, List<Ticket>> lines = new ConcurrentHashMap<>();

  /** {@code booking}'s slot has come and is handed to its caller's thread (on the timer's thread). */
  Ticket due(Booking booking) {
    Ticket t = new Ticket(booking.bucket.name(), booking.slotNanos(), booking.askOrder);
    lines.compute(t.bucket, (k, line) -> {
      List<Ticket> l = line == null ? new ArrayList<>(4) : line;
      int at = 0;
      while (at < l.size() && IN_ORDER.compare(l.get(at), t) <= 0) {
        at++;
      }
      l.add(at, t);
      return l;
    });
    return t;
  }

  /**
   * On the caller's thread: waits while a ticket ahead of {@code t} is in its line, until {@code deadlineNanos} on
   * the throttle's clock (and as long in real time, whatever the clock does), or an interrupt (its flag kept). It
   * stays in the line: it leaves when its call does ({@link #leave}).
   */
  void pass(Ticket t, SlotWaits waits, long deadlineNanos) {
    long realDeadline = System.nanoTime() + Math.max(0, deadlineNanos - waits.time().nanoTime());
    t.waiting = Thread.currentThread();
    while (behind(t, waits.time().nanoTime() - waits.lateLimitNanos())) {
      long left = Math.min(deadlineNanos - waits.time().nanoTime(), realDeadline - System.nanoTime());
      if (left <= 0 || Thread.currentThread().isInterrupted()) {
        break;
      }
      LockSupport.parkNanos(this, left);
    }
    t.waiting = null;
  }

  /**
   * Takes {@code t} out of its line (it left, books again, or gave up), waking the thread of the line's new head if
   * it waits: the threads behind that one wait for it, not for {@code t}.
   */
  void leave(Ticket t) {
    Thread[] wake = {null};
    lines.computeIfPresent(t.bucket, (k, line) -> {
      if (line.remove(t) && !line.isEmpty()) {
        wake[0] = line.get(0).waiting;
      }
      return line.isEmpty() ? null : line;
    });
    if (wake[0] != null) {
      LockSupport.unpark(wake[0]);
    }
  }

  /**
   * Whether a ticket ahead of {@code t} is still in its line; tickets of slots before {@code staleNanos} go (their
   * threads, when they run, are past the late limit and book again).
   */
  private boolean behind(Ticket t, long staleNanos) {
    boolean[] behind = {false};
    List<Thread> wake = new ArrayList<>(0);
    lines.computeIfPresent(t.bucket, (k, line) -> {
      boolean pruned = false;
      while (!line.isEmpty() && line.get(0) != t && line.get(0).slotNanos - staleNanos < 0) {
        Thread w = line.remove(0).waiting; // its thread, if it waits, goes on and books again
        if (w != null) {
          wake.add(w);
        }
        pruned = true;
      }
      behind[0] = !line.isEmpty() && line.get(0) != t;
      if (pruned && behind[0] && line.get(0).waiting != null) {
        wake.add(line.get(0).waiting); // the new head's thread waited for the stale one
      }
      return line;
    });
    wake.forEach(LockSupport::unpark);
    return behind[0];
  }

  /** How many buckets have slots handed over whose threads have not left: for tests. */
  int lines() {
    return lines.size();
  }
}
