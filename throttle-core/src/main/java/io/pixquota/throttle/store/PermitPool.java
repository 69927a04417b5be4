package io.pixquota.throttle.store;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A cap on calls in flight, shared by the fleet: a call takes a {@link Permit} before it is sent and gives it back when
 * its answer arrives, it fails, or it is cancelled. Every permit is leased: a holder that dies (a {@code kill -9}, a
 * partition) costs the pool its permit until the lease ends, not for ever; a release after the lease ended frees
 * nothing another call now holds (each permit has an id of its own, a fencing token). Callers without a permit wait in
 * the pool's line: by class ({@link Waiter#rank()}: {@code INTERACTIVE} before {@code BATCH}), then earliest deadline
 * first (a caller that may wait 2 s before one that may wait 10 s and still has time), then arrival.
 *
 * <p>With a {@link SlotAsk}, a pool that can decide it with the bucket in one step (the same store, one slot of a
 * Cluster) books the call's rate slot in the same decision as its permit, both or neither, in one round trip; one that
 * cannot answers the permit alone ({@link PermitAnswer#acquisition()} null) and the caller books the slot after.
 *
 * <p>Implemented by {@link LocalPermitPool} (one process) and, in pixquota-redis, {@code RedisPermitPool}.
 * Implementations are threadsafe.
 */
public interface PermitPool {
  /** The pool's name, as meters and logs show it. */
  String name();

  /**
   * How many calls this process asks the pool to let be in flight at once, fleet-wide. A pool shared with processes
   * that ask for fewer holds everyone to the smallest ({@link Readings#capacityInForce()}).
   */
  int capacity();

  /** How long a permit lasts when its holder never gives it back. */
  Duration lease();

  /**
   * A permit for {@code waiter} if it is its turn and one is free, else its place in line (kept while it asks again
   * within the pool's waiter lease). One round trip.
   *
   * @param slot the rate slot to book in the same decision; null: none
   * @throws StoreUnavailableException when the store does not answer
   */
  PermitAnswer take(Waiter waiter, SlotAsk slot) throws StoreUnavailableException, InterruptedException;

  /** {@link #take} without blocking a thread; the default answers on the calling thread. */
  default CompletionStage<PermitAnswer> takeAsync(Waiter waiter, SlotAsk slot) {
    try {
      return CompletableFuture.completedFuture(take(waiter, slot));
    } catch (StoreUnavailableException e) {
      return CompletableFuture.failedFuture(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Gives a permit back; without blocking (the release is best effort: a lost one costs its lease).
   *
   * @return completes with true when the permit was still held, false when its lease had ended (it freed nothing)
   */
  CompletionStage<Boolean> release(Permit permit);

  /**
   * {@code waiter} stops waiting (gave up, cancelled, or its take failed): its place is given to the next, and so is a
   * permit the pool gave it in an answer that never arrived (a timeout); best effort.
   */
  void leave(Waiter waiter);

  /**
   * Completes when it may be {@code waiter}'s turn (a permit was given back or a lease ended while it was first in
   * line), or after {@code atMost}, whichever comes first; then the waiter asks again with {@link #take}.
   */
  CompletionStage<Void> turn(Waiter waiter, Duration atMost);

  /**
   * Prepares the pool's store now (loads its scripts, subscribes to the turns), so that the first waiters of a burst
   * neither pay for it nor miss a turn. Optional; the default does nothing.
   *
   * @throws StoreUnavailableException when the store does not answer
   */
  default void preload() throws StoreUnavailableException, InterruptedException {}

  /** What this process last saw of the pool; no I/O. */
  Readings readings();

  /**
   * This process makes no more calls through the pool: what it registered there (its capacity and lease) stops
   * counting for the fleet. Best effort; the default does nothing.
   */
  default void close() {}

  /**
   * A caller waiting for a permit: an id of its own (its permit's too), the rank of its class in the line (0 first;
   * the throttle gives a {@code Priority}'s ordinal, so {@code INTERACTIVE} goes before {@code BATCH}), and how long it
   * may wait: its deadline, set by the pool when it first asks (then plus {@code maxWait}), orders the line within a
   * class, earliest first.
   */
  record Waiter(String id, int rank, Duration maxWait) {
    /** The highest rank a line keeps apart. */
    public static final int MAX_RANK = 15;
    /** The longest wait a line tells apart; a waiter that may wait longer is lined up as waiting this long. */
    public static final Duration LONGEST_WAIT = Duration.ofDays(1);

    public Waiter {
      Checks.keyName("waiter id", id);
      if (rank < 0 || rank > MAX_RANK) {
        throw new IllegalArgumentException("rank must be between 0 and " + MAX_RANK + ", was " + rank);
      }
      Checks.notNegative("maxWait", maxWait);
      maxWait = maxWait.compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : maxWait;
    }

    /** A waiter that may wait {@link #LONGEST_WAIT}: last of its class but for older ones of the same. */
    public Waiter(String id, int rank) {
      this(id, rank, LONGEST_WAIT);
    }

    /** A waiter with a fresh random id. */
    public static Waiter of(int rank, Duration maxWait) {
      byte[] b = new byte[12];
      ThreadLocalRandom.current().nextBytes(b);
      return new Waiter(Base64.getUrlEncoder().withoutPadding().encodeToString(b), rank, maxWait);
    }

    /** A waiter with a fresh random id that may wait {@link #LONGEST_WAIT}. */
    public static Waiter of(int rank) {
      return of(rank, LONGEST_WAIT);
    }
  }

  /** A rate slot to book with the permit: the bucket, the call's cost on it, the longest wait for its slot. */
  record SlotAsk(TokenBucket bucket, double cost, Duration maxWait) {
    public SlotAsk {
      Objects.requireNonNull(bucket, "bucket cannot be null");
      Checks.notNegative("maxWait", maxWait);
    }
  }

  /**
   * One permit: its pool, its id (its waiter's id, unique to one call's ask: a fencing token, never held twice), and
   * when its lease ends on the caller's clock.
   */
  record Permit(String pool, String id, long leaseEndsAtNanos) {
    @Override
    public String toString() {
      return "Permit{" + pool + "#" + id + "}";
    }
  }

  /**
   * The pool's answer.
   *
   * @param permit          the permit taken; null when the waiter waits, or was refused
   * @param ahead           permits that must be given back before it is the waiter's turn (0 when it has one)
   * @param acquisition     the bucket's answer to the {@link SlotAsk} decided with the permit; null when there was
   *                        none, or when the pool could not decide it with the bucket (the caller books it)
   * @param inUse           permits held fleet-wide after the decision
   * @param expired         leases that had ended unreturned and were reclaimed in this decision (dead holders)
   * @param answeredAtNanos when the answer reached this process, on the caller's clock
   * @param firstBackIn     when not null, the waiter was refused at once and has left the line: even first in line,
   *                        no permit comes back before its deadline (the earliest-taken permit held is expected back
   *                        in this long: its take plus the shortest hold the pool saw lately)
   */
  record PermitAnswer(Permit permit, int ahead, Acquisition acquisition, int inUse, int expired,
      long answeredAtNanos, Duration firstBackIn) {
    /** An answer that refuses nobody at once. */
    public PermitAnswer(Permit permit, int ahead, Acquisition acquisition, int inUse, int expired,
        long answeredAtNanos) {
      this(permit, ahead, acquisition, inUse, expired, answeredAtNanos, null);
    }

    /** The waiter refused at once: no permit comes back before its deadline; it has left the line. */
    public static PermitAnswer refused(int ahead, Duration firstBackIn, int inUse, int expired, long answeredAtNanos) {
      return new PermitAnswer(null, ahead, null, inUse, expired, answeredAtNanos,
          Objects.requireNonNull(firstBackIn, "firstBackIn cannot be null"));
    }

    /** Whether the waiter was refused at once ({@link #firstBackIn()} says why). */
    public boolean refusedAtOnce() {
      return firstBackIn != null;
    }
  }

  /**
   * What this process saw of the pool.
   *
   * @param inUse           permits held fleet-wide, as the last answer said
   * @param expiredLeases   leases reclaimed unreturned (a dead holder's, an abandoned call's), in answers to this
   *                        process
   * @param capacityInForce the capacity the fleet is held to: the smallest any live process asks for, as the last
   *                        answer said ({@link #capacity()} before any)
   */
  record Readings(int inUse, long expiredLeases, int capacityInForce) {}
}
