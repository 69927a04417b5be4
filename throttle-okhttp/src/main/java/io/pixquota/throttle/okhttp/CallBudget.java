package io.pixquota.throttle.okhttp;

import io.pixquota.throttle.Slot;
import java.time.Duration;
import java.util.function.LongSupplier;
import okio.Timeout;

/**
 * What a {@link ThrottledCall}'s timeout leaves across its bookings, and whether it may book once more: OkHttp retries
 * a call sent on a connection that failed, and the retry books a slot of its own, holding no connection
 * ({@link TransportRetryException}), within what the earlier attempts left of the call timeout. The call's
 * {@link Timeout} is read when asked: a caller may set it until the call starts. A call's attempts follow each other.
 */
final class CallBudget {
  /** The most bookings a call makes for OkHttp's retries (each one a slot: a token, and a permit with a pool). */
  static final int MOST_RETRIES = 2;

  private final Timeout timeout;
  private final LongSupplier nanoClock; // System.nanoTime, as OkHttp's timeouts
  private volatile long startedNanos;
  private volatile long spentNanos; // by the attempts before the current booking
  private volatile int retries;

  CallBudget(Timeout timeout) {
    this(timeout, System::nanoTime);
  }

  CallBudget(Timeout timeout, LongSupplier nanoClock) {
    this.timeout = timeout;
    this.nanoClock = nanoClock;
  }

  /** The call starts now. */
  void start() {
    startedNanos = nanoClock.getAsLong();
  }

  /** Whether the call has a timeout. */
  boolean timed() {
    return timeout.timeoutNanos() > 0;
  }

  /** The current booking's max wait: what the timeout left it; null without a timeout. */
  Duration maxWait() {
    return timed() ? Duration.ofNanos(Math.max(0, timeout.timeoutNanos() - spentNanos)) : null;
  }

  /** What the timeout leaves the send on {@code slot} after its wait and {@code gateNanos} at the gate (if timed). */
  long leftNanos(Slot slot, long gateNanos) {
    return timeout.timeoutNanos() - spentNanos - slot.waitedNanos() - gateNanos;
  }

  /** Whether the call may book again for OkHttp's retry; counts it, and the time its attempts spent so far. */
  boolean retry() {
    if (retries >= MOST_RETRIES) {
      return false;
    }
    retries++;
    spentNanos = nanoClock.getAsLong() - startedNanos;
    return true;
  }
}
