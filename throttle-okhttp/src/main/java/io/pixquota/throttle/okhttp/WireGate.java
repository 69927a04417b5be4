package io.pixquota.throttle.okhttp;

import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The blocking calls to one host that may hold a connection at once, as a client's dispatcher lets that many async
 * calls run ({@code maxRequestsPerHost}): a {@link ThrottledCall} whose slot has come enters before OkHttp takes a
 * connection and leaves when the call failed or its answer is closed ({@link GatedBody}), as OkHttp gives the
 * connection back. The rest wait in the order they came, parked, holding no connection. Without it a thread that has
 * its answer but no core yet (10,000 threads on 2 cores, a collector's pause) keeps its connection while the calls due
 * behind it open new ones: the connections to the provider then follow the machine's scheduling, not the calls in
 * flight.
 *
 * <p>A place freed goes to the first waiter directly (no barging). A waiter gives up, taking nothing, when the call is
 * cancelled (its thread unparked by {@link ThrottledCall#cancel}), interrupted, or its deadline passes. Uses a
 * {@link ReentrantLock}, never a monitor: a virtual thread that parks here unmounts. Threadsafe.
 */
final class WireGate {
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
  private final int places;
  private int taken; // guarded by lock

  /** A gate of {@code places} (at least 1). */
  WireGate(int places) {
    if (places < 1) {
      throw new IllegalArgumentException("places must be at least 1, was " + places);
    }
    this.places = places;
  }

  /** Calls in now; for tests. */
  int taken() {
    lock.lock();
    try {
      return taken;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Takes a place, parking this thread until one is free.
   *
   * @param deadlineNanos on {@link System#nanoTime()}; {@code Long.MAX_VALUE} for none
   * @param canceled      read whenever the thread wakes
   * @return whether it waited
   * @throws InterruptedIOException when cancelled, interrupted (the flag set again) or past the deadline (the call
   *                                timeout's); no place is taken then
   */
  boolean enter(long deadlineNanos, BooleanSupplier canceled) throws InterruptedIOException {
    Waiter w;
    lock.lock();
    try {
      if (taken < places && waiting.isEmpty()) {
        taken++;
        return false;
      }
      w = new Waiter(Thread.currentThread());
      waiting.addLast(w);
    } finally {
      lock.unlock();
    }
    while (!w.in) {
      boolean interrupted = Thread.interrupted();
      long left = deadlineNanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
      if (interrupted || canceled.getAsBoolean() || left <= 0) {
        giveUp(w);
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
        throw new InterruptedIOException((interrupted ? "interrupted" : left > 0 ? "call canceled" : "timeout")
            + " while waiting for its turn at the host; not sent");
      }
      if (left == Long.MAX_VALUE) {
        LockSupport.park(this);
      } else {
        LockSupport.parkNanos(this, left);
      }
    }
    return true;
  }

  /** Gives the place back: to the first waiter, or free. */
  void leave() {
    Waiter next;
    lock.lock();
    try {
      next = waiting.pollFirst();
      if (next == null) {
        taken--;
        return;
      }
      next.in = true; // the place passes on: taken stays
    } finally {
      lock.unlock();
    }
    LockSupport.unpark(next.thread);
  }

  /** Out of the line; a place handed over meanwhile is passed on. */
  private void giveUp(Waiter w) {
    lock.lock();
    try {
      if (!w.in) {
        waiting.remove(w);
        return;
      }
    } finally {
      lock.unlock();
    }
    leave();
  }

  private static final class Waiter {
    final Thread thread;
    volatile boolean in;

    Waiter(Thread thread) {
      this.thread = thread;
    }
  }

  @Override
  public String toString() {
    return "WireGate{" + places + " places}";
  }
}
