package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One call's way to its slot, whichever thread (or none) waits for it: its plan, its class, the bucket's answer that
 * booked it, when the call first asked, and how many times it booked again, by reason. Not threadsafe: one call's
 * steps happen one after the other.
 */
final class Booking {
  /**
   * How many times a call that woke too late books a fresh slot before it leaves anyway: each rebooking costs a
   * token and a round trip, and a machine that oversleeps three times in a row will not do better on the fourth.
   * (A cut of the rate or a lost state moves or books the slot again as often as it comes: only the max wait ends
   * such a call.)
   */
  static final int MAX_REBOOKS = 3;

  final CallPlan plan;
  final TokenBucket bucket;
  final boolean ownBucket; // the request's own bucket: its route's response costs do not apply
  private final String flow; // the service the call is for (its bucket's shares), or null
  final double cost;
  final Priority priority;
  final Duration maxWait;
  final Duration horizon; // null: as far as the max wait
  final PermitPool pool; // null: the route has none
  final PermitPool.Waiter waiter; // null without a pool
  final long askOrder = AskOrder.current(); // when its caller asked for it, for the store's order (System.nanoTime)
  private volatile PermitPool.Permit permit; // the permit held, from its taking to its release
  private volatile boolean sent; // the request was handed to the client to send: it may be at the provider
  private volatile long sentAtNanos;
  private final Duration configuredMaxWait;
  private final SlotWaits waits;
  volatile WaitObservation observed = WaitObservation.NONE; // set by the throttle as it books
  private final TimeSource time;
  private final long askedAtNanos;
  private Acquisition granted;
  private long slotNanos;
  private long lateNanos;
  private int lateRebooks;
  private int asks;
  private boolean retimed; // a cut moved its slot: it waits for the new one without asking again

  /**
   * @param maxWait           the max wait in force for this call
   * @param configuredMaxWait the throttle's; more than {@code maxWait} when the call's timeout left it less
   * @param flow              the service the call is for (its bucket's shares), or null
   */
  Booking(CallPlan plan, TokenBucket own, Duration maxWait, Duration configuredMaxWait, Priority priority,
      Duration horizon, SlotWaits waits, String flow) {
    this.plan = plan;
    this.ownBucket = own != null;
    this.bucket = (own != null ? own : plan.charge().bucket()).forFlow(flow);
    this.flow = flow;
    this.cost = own != null ? 1 : plan.charge().cost();
    this.priority = priority;
    this.maxWait = maxWait;
    this.configuredMaxWait = configuredMaxWait;
    this.horizon = horizon;
    this.waits = waits;
    this.time = waits.time();
    this.askedAtNanos = time.nanoTime();
    this.pool = plan.pool();
    this.waiter = pool == null ? null : PermitPool.Waiter.of(priority.ordinal(), maxWait);
  }

  /** What the answer's status costs in all on the charge's bucket, or null: none said (or the request's own bucket). */
  Double totalFor(int status) {
    return ownBucket ? null : plan.charge().totalByStatus().get(status);
  }

  /** Whether the call must take a permit before (or with) its slot: its route has a pool, and it holds none. */
  boolean needsPermit() {
    return pool != null && permit == null;
  }

  /** The slot to book with the permit, in the same decision when the pool can. */
  PermitPool.SlotAsk slotAsk() {
    return new PermitPool.SlotAsk(bucket, cost, askWait());
  }

  /** The pool's permit is the call's now; its wait for it is counted. */
  void permitTaken(PermitPool.PermitAnswer answer) {
    permit = answer.permit();
    waits.holds().taken(pool);
    waits.metrics().permits().taken(pool, priority, Duration.ofNanos(Math.max(0, answer.answeredAtNanos()
        - askedAtNanos)));
  }

  /** The request is handed to the client now: from here on it may be at the provider. */
  void sending(long nowNanos) {
    sentAtNanos = nowNanos;
    sent = true;
  }

  boolean holdsPermit() {
    return permit != null;
  }

  /**
   * Gives the permit back, once, for a call that never reached the provider (refused, cancelled or failed before its
   * send, or deferred until it asks again); no thread waits for the store: a release lost costs the permit's lease.
   */
  void releasePermit() {
    PermitPool.Permit p = permit;
    if (p == null) {
      return;
    }
    permit = null;
    waits.holds().release(pool, p);
  }

  /**
   * The call ended: {@code failure} null when its answer came. A call that was sent and failed without an answer (a
   * timeout, a cancel, a broken connection) may still be at the provider: its permit is abandoned, held until the
   * provider can no longer be working on it ({@link PermitHolds}). Any other gives its permit back now.
   */
  void endPermit(Throwable failure) {
    PermitPool.Permit p = permit;
    if (p == null) {
      return;
    }
    if (!sent || failure == null || SendFailures.nothingSent(failure)) {
      releasePermit();
      return;
    }
    permit = null;
    waits.holds().abandon(pool, p, sentAtNanos);
  }

  /** How far ahead the next ask may book: what is left of the max wait, within the class's horizon. */
  Duration askWait() {
    Duration left = leftToWait();
    return horizon != null && horizon.compareTo(left) < 0 ? horizon : left;
  }

  /**
   * Takes the bucket's answer to an ask of {@link #askWait()}. The slot in our clock: the bucket decided before its
   * answer reached this process, so answeredAt + wait is never early. answeredAt is taken on the I/O thread, not
   * when a thread got round to reading the answer: a thread starved of CPU after Redis answered (up to 400 ms on a
   * loaded 2-core machine) counts as late and rebooks, instead of leaving "on time" by its own reckoning with the
   * burst.
   *
   * @return true when booked ({@link #slotNanos()} is the slot); false when the class's horizon kept the call from
   *     booking a slot that is still within its max wait: then {@link #slotNanos()} is when to ask again
   * @throws ThrottleRefusedException when the bucket refused: the slot would be past the max wait
   */
  boolean take(Acquisition a) throws ThrottleRefusedException {
    asks++;
    if (!a.granted()) {
      if (horizon != null && a.waits() && a.waitTime().compareTo(leftToWait()) <= 0) {
        waits.metrics().deferred(bucket.name(), priority);
        slotNanos = a.answeredAtNanos() + a.waitTime().toNanos();
        return false;
      }
      waits.metrics().refused(bucket.name(), priority);
      waits.metrics().flows().answered(bucket, flow, a);
      throw new ThrottleRefusedException(bucket.name(), a.waitTime(), maxWait, a.waits() ? limit()
          : "what waiting can give (a part of the decision that never waits refused it)", a);
    }
    granted = a;
    slotNanos = a.answeredAtNanos() + a.waitTime().toNanos();
    waits.metrics().flows().answered(bucket, flow, a);
    return true;
  }

  Acquisition granted() {
    return granted;
  }

  /** Its slot, traded with a call of the same bucket, flow, cost and class ({@link AskOrderTrades}). */
  void slotTraded(Acquisition a, long nanos) {
    granted = a;
    slotNanos = nanos;
  }

  String flow() {
    return flow;
  }

  /** The slot, on the throttle's clock (or, after an ask the horizon deferred, when to ask again). */
  long slotNanos() {
    return slotNanos;
  }

  long askedAtNanos() {
    return askedAtNanos;
  }

  long lateNanos() {
    return lateNanos;
  }

  /**
   * Whether the last {@link #checkBeforeLeaving} moved the slot (a cut of the rate): the call then waits for its new
   * slot, asking nothing. Clears the mark.
   */
  boolean takeRetimed() {
    boolean r = retimed;
    retimed = false;
    return r;
  }

  /**
   * A call whose slot a cut moved past what is left of its max wait: refused as the bucket would refuse it now, its
   * tokens to be given back by the caller.
   */
  ThrottleRefusedException movedTooFar() {
    waits.metrics().refused(bucket.name(), priority);
    long waitNanos = Math.max(0, slotNanos - time.nanoTime());
    return new ThrottleRefusedException(bucket.name(), Duration.ofNanos(waitNanos), maxWait, limit()
        + " (the provider refused calls and the rate was cut while it waited: its slot moved to the new rate)",
        granted);
  }

  /** Whether the slot can no longer come: its state lost, or its rate cut since it was booked. */
  boolean voided() {
    return bucket.validity(granted) != TokenBucket.Validity.VALID;
  }

  /**
   * What a refused wait exceeded, in words: the max wait, or what the call's timeout left of it, or what is left of
   * either after the call has waited (a class with a horizon that asked again, a call that booked again).
   */
  private String limit() {
    String whole = maxWait.compareTo(configuredMaxWait) < 0
        ? "the " + maxWait.toMillis() + " ms its call timeout left it (max wait " + configuredMaxWait.toMillis()
            + " ms)"
        : "its max wait " + maxWait.toMillis() + " ms";
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - askedAtNanos);
    return asks <= 1 ? whole : "the " + leftToWait().toMillis() + " ms left of " + whole + " after "
        + waitedMillis + " ms" + (horizon != null ? " waiting to ask again within its " + priority + " horizon"
        : " of waiting");
  }

  /** What is left of the max wait, for a booking made again. */
  Duration leftToWait() {
    Duration left = maxWait.minusNanos(time.nanoTime() - askedAtNanos);
    return left.isNegative() ? Duration.ZERO : left;
  }

  /**
   * Decides whether the call must wait again instead of leaving now, and counts why: the provider refused a call and
   * the fleet's rate was cut since the slot was booked (the slot moves to the new rate, {@link #takeRetimed}, or the
   * call books again when this process cannot tell where); the state that booked it was lost (it books again); or
   * the call is more than the late limit past its slot (it books again, at most {@link #MAX_REBOOKS} times).
   * Otherwise it leaves, {@link #lateNanos()} late.
   *
   * @return true when the call must wait again: for its moved slot, or for a new booking
   */
  boolean checkBeforeLeaving() {
    TokenBucket.Validity validity = bucket.validity(granted);
    long late = time.nanoTime() - slotNanos;
    if (validity == TokenBucket.Validity.RATE_CUT) {
      // The slot belongs to the old rate (and may fall in the provider's Retry-After). The cut kept the slots booked
      // ahead in their order: this one moves to the new rate, where this process heard how; else it books again.
      waits.metrics().superseded(bucket.name());
      Acquisition moved = bucket.retimed(granted);
      if (moved != null) {
        granted = moved;
        slotNanos = moved.answeredAtNanos() + moved.waitTime().toNanos();
        retimed = true;
      }
      return true;
    }
    if (validity == TokenBucket.Validity.STATE_LOST) {
      // The new state does not know the slot, and leaving on it could join the new state's full burst. Book
      // again, in the new state. The lost tokens are not given back: there is nothing to give them back to.
      waits.stateLost(bucket.name());
      return true;
    }
    if (late > waits.lateLimitNanos() && lateRebooks < MAX_REBOOKS) {
      // Woke too late: leaving now could bunch with the calls booked right after us and breach the provider's
      // bucket. Book a fresh slot after them instead. The missed slot is not given back: in a line booked ahead, a
      // token given back now hands the next booking the last booked call's slot, two calls on one slot, and a burst
      // of late wake-ups (virtual threads on busy carriers) became 429s at the provider.
      lateRebooks++;
      waits.metrics().rebooked(bucket.name());
      return true;
    }
    lateNanos = late;
    return false;
  }
}
