package io.pixquota.throttle;

import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * A call that has left on its slot ({@link Throttle#depart}) and is being sent by a client whose send is itself
 * asynchronous (Reactor's {@code WebClient}): tell it how the send ended, once, with {@link #answered} (the answer's
 * status and headers settle as in every adapter: a 429's hold, response costs) or {@link #failed} (no answer; a
 * cancel too). An answer gives the call's permit back, if its route has a pool; a failure keeps it while the provider
 * may still be working on the request, unless it came before any byte was written. A second report does nothing. No
 * I/O of its own on the caller's thread: the permit's release is asynchronous. Threadsafe.
 */
public final class Departure {
  private final Booking booking;
  private final Settlement settlement;
  private final ThrottleMetrics metrics;
  private final TimeSource time;
  private final long sentAtNanos;
  private final AtomicBoolean ended = new AtomicBoolean();

  /**
   * Leaves on {@code booking}'s handed slot now ({@link Throttle#depart}).
   *
   * @throws SlotMissedException when the slot went bad: the permit is kept, the booking asks again
   */
  static Departure leave(Booking booking, Settlement settlement, ThrottleMetrics metrics, TimeSource time)
      throws SlotMissedException {
    if (booking.checkBeforeLeaving()) {
      throw new SlotMissedException(booking.bucket.name());
    }
    return new Departure(booking, settlement, metrics, time, Math.max(0, time.nanoTime() - booking.slotNanos()));
  }

  private Departure(Booking booking, Settlement settlement, ThrottleMetrics metrics, TimeSource time,
      long lateNanos) {
    this.booking = booking;
    this.settlement = settlement;
    this.metrics = metrics;
    this.time = time;
    this.sentAtNanos = time.nanoTime();
    booking.sending(sentAtNanos);
    String name = booking.bucket.name();
    settlement.leaving(name, lateNanos);
    metrics.granted(name, booking.priority, Duration.ofNanos(sentAtNanos - booking.askedAtNanos()));
    metrics.lateness(name, lateNanos);
    booking.observed.left(sentAtNanos);
  }

  /** How long the call waited for its slot (and permit), from its booking to its departure. */
  public Duration waited() {
    return Duration.ofNanos(sentAtNanos - booking.askedAtNanos());
  }

  /**
   * The answer came: {@code status}, and its headers by name ({@code null} for one it does not have).
   *
   * @return false when the departure had already ended (nothing done)
   */
  public boolean answered(int status, UnaryOperator<String> headers) {
    return answered(status, headers, Runnable::run);
  }

  /**
   * {@link #answered(int, UnaryOperator)} for a caller on a thread that must not block (an event loop): an answer
   * whose settling writes the store and waits for it (a 429 told to the bucket, a response cost) is settled on
   * {@code blocking}; any other is settled here, without waiting on the store.
   *
   * @return false when the departure had already ended (nothing done)
   */
  public boolean answered(int status, UnaryOperator<String> headers, Executor blocking) {
    Objects.requireNonNull(headers, "headers cannot be null");
    Objects.requireNonNull(blocking, "blocking cannot be null");
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    long answeredNanos = time.nanoTime() - sentAtNanos;
    Runnable settle = () -> {
      try {
        metrics.answered(booking.bucket.name(), answeredNanos);
        settlement.answered(booking, booking.granted(), status, headers);
      } finally {
        booking.releasePermit();
      }
    };
    if (status == 429 || booking.totalFor(status) != null) {
      blocking.execute(settle);
    } else {
      settle.run();
    }
    return true;
  }

  /**
   * The request was not sent after all (cancelled as its slot came, before the client was given it): its permit goes
   * back now.
   *
   * @return false when the departure had already ended (nothing done)
   */
  public boolean notSent() {
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    booking.releasePermit();
    return true;
  }

  /**
   * No answer: the send failed, timed out or was cancelled after it started. The slot was spent and the request may
   * be at the provider: the permit is held until the provider can no longer be working on it.
   *
   * @return false when the departure had already ended (nothing done)
   */
  public boolean failed() {
    return failed(null);
  }

  /**
   * No answer, because of {@code cause} (null: unknown, or a cancel). A cause that comes before any byte of the
   * request is written (no address, no connection, no TLS session) gives the permit back now; any other keeps it
   * while the provider may still be working on the request.
   *
   * @return false when the departure had already ended (nothing done)
   */
  public boolean failed(Throwable cause) {
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    booking.endPermit(cause != null ? cause : new java.util.concurrent.CancellationException("no answer"));
    return true;
  }

  @Override
  public String toString() {
    return "Departure{" + booking.bucket.name() + ", " + booking.priority + (ended.get() ? ", ended" : "") + "}";
  }
}
