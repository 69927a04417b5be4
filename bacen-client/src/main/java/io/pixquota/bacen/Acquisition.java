package io.pixquota.bacen;

import java.time.Duration;

/**
 * The bucket's answer to one {@link TokenBucket#acquire(double, Duration) acquire}.
 *
 * <p>Granted: the caller's slot is booked; it must wait {@link #waitTime()} and then proceed, with no second call to
 * the bucket. Refused: nothing was booked or consumed; {@link #waitTime()} is the wait the call would have needed.
 *
 * @param granted    whether a slot was booked
 * @param waitTime   time from the decision to the booked slot (or the slot it would have had)
 * @param remaining  tokens left after the decision, the smallest over the bucket's limits; negative when slots are
 *                   already booked ahead
 * @param slotMicros the booked slot in the bucket's clock (Redis {@code TIME} by default), microseconds since the
 *                   epoch
 * @param answeredAtNanos {@link System#nanoTime()} when the answer reached this process, taken on the I/O thread
 *                   that received it, before any delay in waking the caller: the decision was taken no later than
 *                   this, so {@code answeredAtNanos + waitTime} is never before the booked slot
 * @param stateEpoch which state of the bucket booked the slot (for {@link RedisTokenBucket}: when Redis created the
 *                   state, in microseconds); 0 when the bucket does not say. See {@link TokenBucket#lost}
 * @param rateGeneration under which rate the slot was booked: a new generation begins each time the provider's
 *                   refusal cuts the rate; 0 when the bucket does not say. See {@link TokenBucket#superseded}
 */
public record Acquisition(boolean granted, Duration waitTime, double remaining, long slotMicros,
    long answeredAtNanos, long stateEpoch, long rateGeneration) {

  /** An answer from a bucket that does not tell its states apart ({@code stateEpoch} and generation 0). */
  public Acquisition(boolean granted, Duration waitTime, double remaining, long slotMicros, long answeredAtNanos) {
    this(granted, waitTime, remaining, slotMicros, answeredAtNanos, 0, 0);
  }

  /** The moment the bucket decided, in its clock: the slot minus the wait. */
  public long decidedAtMicros() {
    return slotMicros - waitTime.toNanos() / 1000;
  }
}
