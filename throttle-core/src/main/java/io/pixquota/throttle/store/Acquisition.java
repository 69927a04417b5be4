package io.pixquota.throttle.store;

import java.time.Duration;
import java.util.Objects;

/**
 * The bucket's answer to one {@link TokenBucket#acquire(double, Duration) acquire}.
 *
 * <p>Granted: the caller's slot is booked; it must wait {@link #waitTime()} and then proceed, with no second call to
 * the bucket. Refused: nothing was booked or consumed; {@link #waitTime()} is the wait the call would have needed.
 * A bucket may {@link #withStamp stamp} its answer with what it needs to judge the slot later
 * ({@link TokenBucket#validity}); to anyone else the stamp is opaque. Immutable.
 */
public final class Acquisition {
  private final boolean granted;
  private final Duration waitTime;
  private final double remaining;
  private final long slotMicros;
  private final long answeredAtNanos;
  private final Object stamp;
  private final boolean waits;
  private final String tokensOf;

  private Acquisition(boolean granted, Duration waitTime, double remaining, long slotMicros, long answeredAtNanos,
      Object stamp, boolean waits, String tokensOf) {
    this.granted = granted;
    this.waitTime = Objects.requireNonNull(waitTime, "waitTime cannot be null");
    this.remaining = remaining;
    this.slotMicros = slotMicros;
    this.answeredAtNanos = answeredAtNanos;
    this.stamp = stamp;
    this.waits = waits;
    this.tokensOf = tokensOf;
  }

  /**
   * An answer without a stamp.
   *
   * @param granted         whether a slot was booked
   * @param waitTime        time from the decision to the booked slot (or the slot it would have had)
   * @param remaining       tokens left after the decision, the smallest over the bucket's limits; negative when slots
   *                        are already booked ahead
   * @param slotMicros      the booked slot in the bucket's clock, microseconds since the epoch
   * @param answeredAtNanos {@link System#nanoTime()} (or the throttle's clock) when the answer reached this process,
   *                        taken on the thread that received it, before any delay in waking the caller: the decision
   *                        was taken no later than this, so {@code answeredAtNanos + waitTime} is never before the slot
   */
  public static Acquisition of(boolean granted, Duration waitTime, double remaining, long slotMicros,
      long answeredAtNanos) {
    return new Acquisition(granted, waitTime, remaining, slotMicros, answeredAtNanos, null, true, null);
  }

  /** {@link #of}, stamped at once: one object on a bucket's hot path, not a copy. */
  public static Acquisition of(boolean granted, Duration waitTime, double remaining, long slotMicros,
      long answeredAtNanos, Object stamp) {
    return new Acquisition(granted, waitTime, remaining, slotMicros, answeredAtNanos, stamp, true, null);
  }

  /**
   * {@link #of(boolean, Duration, double, long, long, Object)} from a bucket with shares:
   * {@code tokensOf} is the flow whose share gave the slot (the caller's own, or the flow it borrowed from).
   */
  public static Acquisition of(boolean granted, Duration waitTime, double remaining, long slotMicros,
      long answeredAtNanos, Object stamp, String tokensOf) {
    return new Acquisition(granted, waitTime, remaining, slotMicros, answeredAtNanos, stamp, true, tokensOf);
  }

  /** This answer with a stamp of its bucket's own (which state and which rate booked it, say). */
  public Acquisition withStamp(Object stamp) {
    return new Acquisition(granted, waitTime, remaining, slotMicros, answeredAtNanos, stamp, waits, tokensOf);
  }

  /**
   * This refusal, as one that waiting cannot help: a part of the decision that never waits refused (a bucket group's
   * end-user bucket). A caller that would ask again later (a class with a horizon) is refused at once instead.
   */
  public Acquisition withoutWaiting() {
    return new Acquisition(granted, waitTime, remaining, slotMicros, answeredAtNanos, stamp, false, tokensOf);
  }

  /**
   * This booking with its slot moved to {@code slotMicros} (the bucket's clock; its wait longer by as much) and a new
   * stamp: what a bucket answers when a cut of its rate moved a waiting call's slot ({@link TokenBucket#retimed}).
   */
  public Acquisition movedTo(long slotMicros, Object stamp) {
    Duration moved = waitTime.plusNanos(Math.multiplyExact(slotMicros - this.slotMicros, 1000L));
    return new Acquisition(granted, moved, remaining, slotMicros, answeredAtNanos, stamp, waits, tokensOf);
  }

  /** Whether asking again after {@link #waitTime()} may grant it: true but for {@link #withoutWaiting()}. */
  public boolean waits() {
    return waits;
  }

  public boolean granted() {
    return granted;
  }

  public Duration waitTime() {
    return waitTime;
  }

  public double remaining() {
    return remaining;
  }

  public long slotMicros() {
    return slotMicros;
  }

  public long answeredAtNanos() {
    return answeredAtNanos;
  }

  /**
   * With shares deciding, the flow whose share gave the slot: the caller's own flow, or another one it
   * borrowed from; null from a bucket without shares.
   */
  public String tokensOf() {
    return tokensOf;
  }

  /** The stamp of the bucket that answered; null when it set none. */
  public Object stamp() {
    return stamp;
  }

  /** The moment the bucket decided, in its clock: the slot minus the wait. */
  public long decidedAtMicros() {
    return slotMicros - waitTime.toNanos() / 1000;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Acquisition a && granted == a.granted && waitTime.equals(a.waitTime)
        && Double.compare(remaining, a.remaining) == 0 && slotMicros == a.slotMicros
        && answeredAtNanos == a.answeredAtNanos && Objects.equals(stamp, a.stamp) && waits == a.waits
        && Objects.equals(tokensOf, a.tokensOf);
  }

  @Override
  public int hashCode() {
    return Objects.hash(granted, waitTime, remaining, slotMicros, answeredAtNanos, stamp, waits, tokensOf);
  }

  @Override
  public String toString() {
    return "Acquisition{" + (granted ? "granted" : waits ? "refused" : "refused for good") + ", wait=" + waitTime
        + ", remaining=" + remaining + ", slotMicros=" + slotMicros + (stamp == null ? "" : ", stamp=" + stamp)
        + (tokensOf == null ? "" : ", tokensOf=" + tokensOf) + "}";
  }
}
