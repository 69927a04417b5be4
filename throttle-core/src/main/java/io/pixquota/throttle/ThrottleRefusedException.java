package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import java.time.Duration;

/**
 * The bucket would have made this call wait longer than allowed, so it was not sent and consumed nothing. Rising
 * numbers of these mean demand has outgrown the contracted quota.
 */
public final class ThrottleRefusedException extends ThrottleException {
  private static final long serialVersionUID = 1L;
  private final Duration neededWait;
  private final Duration maxWait;
  private final transient Acquisition answer;

  public ThrottleRefusedException(String bucket, Duration neededWait, Duration maxWait) {
    this(bucket, neededWait, maxWait, "its max wait " + maxWait.toMillis() + " ms");
  }

  /**
   * @param limit what the wait exceeded, as a sentence ends: "its max wait 5000 ms", "the 30000 ms its call timeout
   *              left it (max wait 60000 ms)", "the 1200 ms left of its max wait 5000 ms"
   */
  ThrottleRefusedException(String bucket, Duration neededWait, Duration maxWait, String limit) {
    this(bucket, neededWait, maxWait, limit, null);
  }

  ThrottleRefusedException(String bucket, Duration neededWait, Duration maxWait, String limit, Acquisition answer) {
    super(bucket, "would make this call wait " + neededWait.toMillis() + " ms, more than " + limit
        + "; the call was not sent", null);
    this.neededWait = neededWait;
    this.maxWait = maxWait;
    this.answer = answer;
  }

  /**
   * A call of a class with a horizon that spent its whole max wait queued behind this process's other calls of the
   * class: it needed at least its max wait.
   */
  static ThrottleRefusedException queuedTooLong(String bucket, Priority priority, Duration maxWait) {
    return new ThrottleRefusedException(bucket, maxWait, "waited its max wait " + maxWait.toMillis() + " ms behind "
        + "this process's other " + priority + " calls without a slot; the call was not sent");
  }

  /** A call that spent its whole max wait in a permit pool's line: the calls in flight did not end soon enough. */
  static ThrottleRefusedException noPermit(String pool, int ahead, Duration maxWait) {
    return new ThrottleRefusedException(pool, maxWait, "waited its max wait " + maxWait.toMillis() + " ms for a "
        + "permit of pool '" + pool + "' (" + ahead + " still ahead of it); the call was not sent");
  }

  /**
   * A call the pool refused at once: even first in line, no permit comes back before its deadline ({@code firstBackIn},
   * more than the {@code left} it could still wait).
   */
  static ThrottleRefusedException noPermitInTime(String pool, int ahead, Duration firstBackIn, Duration left,
      Duration maxWait) {
    return new ThrottleRefusedException(pool, "refused at once: no permit of pool '" + pool + "' comes back within the "
        + left.toMillis() + " ms it could still wait, even first in line (the earliest expected in "
        + firstBackIn.toMillis() + " ms; " + ahead + " ahead of it); the call was not sent", firstBackIn, maxWait);
  }

  private ThrottleRefusedException(String bucket, Duration maxWait, String message) {
    this(bucket, message, maxWait, maxWait);
  }

  private ThrottleRefusedException(String bucket, String message, Duration neededWait, Duration maxWait) {
    super(bucket, message, null);
    this.neededWait = neededWait;
    this.maxWait = maxWait;
    this.answer = null;
  }

  /** The wait the call would have needed for its slot (at least this, for a call queued behind its class). */
  public Duration neededWait() {
    return neededWait;
  }

  /** The max wait in force for this call: the configured one, or less if the call's timeout left less. */
  public Duration maxWait() {
    return maxWait;
  }

  /**
   * The bucket's refusing answer, whose {@link Acquisition#stamp()} a store may use to say more (a bucket group: which
   * of its buckets refused, and why); null when the call was refused before an answer (in line, or for a permit).
   */
  public Acquisition answer() {
    return answer;
  }
}
