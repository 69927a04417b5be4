package io.pixquota.throttle.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A token bucket, possibly shared by many processes, that books slots instead of refusing: a call that finds too few
 * tokens is told how long to wait for its own slot, and proceeds after exactly that wait.
 *
 * <p>Blocking operations, one round trip each to a shared store (and {@link #acquireAsync} / {@link #refundAsync},
 * which block no thread):
 * <ul>
 *   <li>{@link #acquire(double, Duration)} books a slot or refuses, without sleeping;</li>
 *   <li>{@link #charge(double)} takes tokens after the fact (a provider that charges more for some responses);</li>
 *   <li>{@link #refund(double)} gives tokens back, never beyond capacity.</li>
 * </ul>
 * Every implementation passes the same contract test ({@code TokenBucketContract} in pixquota-core's test jar: burst,
 * refill, booking ahead, refusal consumes nothing, charge and refund, several limits, cost validation, a clock that
 * never runs backwards). Implementations are threadsafe. Implemented by {@link LocalTokenBucket} (in memory) and, in
 * pixquota-redis, by {@code RedisTokenBucket}.
 */
public interface TokenBucket {
  /** The bucket's name, as configured. */
  String name();

  /** The limits this bucket checks and charges together; at least one. */
  List<Limit> limits();

  /**
   * Books a slot for work of the given cost, or refuses if the slot is further away than {@code maxWait}.
   *
   * @param cost    {@code 0 < cost <= capacity} of every limit; fractions allowed
   * @param maxWait the longest wait the caller accepts, {@code >= 0}
   * @return granted with the wait until the booked slot, or refused with the wait it would have needed
   * @throws IllegalArgumentException   for a bad cost or maxWait, before any I/O
   * @throws StoreUnavailableException when the bucket's store does not answer in time or fails
   * @throws InterruptedException       when interrupted while waiting for the store's answer
   */
  Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException, InterruptedException;

  /**
   * {@link #acquire} without blocking a thread on the store's answer: the stage completes with the acquisition, or
   * exceptionally with a {@link StoreUnavailableException}. Bad input still throws at once, before any I/O. The
   * default answers on the calling thread with {@link #acquire} (right for an in-memory bucket, a blocking call for
   * any other); a shared store's bucket sends its request without blocking.
   *
   * @throws IllegalArgumentException for a bad cost or maxWait
   */
  default CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait) {
    try {
      return CompletableFuture.completedFuture(acquire(cost, maxWait));
    } catch (StoreUnavailableException e) {
      return CompletableFuture.failedFuture(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * {@link #acquireAsync(double, Duration)} for a call its caller asked for at {@code askedAt} (a
   * {@link System#nanoTime()}, {@link io.pixquota.throttle.AskOrder}): a store that books the calls reaching it
   * together in one step books them in the order they were asked, not the order their threads got there. The default
   * ignores it.
   */
  default CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait, long askedAt) {
    return acquireAsync(cost, maxWait);
  }

  /**
   * This bucket for the calls of one flow (a service of a fleet that shares the bucket's quota): the same
   * bucket, whose acquires, charges and refunds count against that flow's guaranteed share when the bucket has shares
   * ({@code docs/architecture.md}, "Shares within a quota"). A flow the shares do not name takes the share of the
   * flow "*". A bucket without shares, and the default, return the bucket itself; so does a null flow.
   */
  default TokenBucket forFlow(String flow) {
    return this;
  }

  /** The flows that share this bucket and each one's weight, "*" among them; empty (the default) without shares. */
  default Map<String, Double> shares() {
    return Map.of();
  }

  /**
   * Takes {@code cost} more tokens now, whatever is left; the balance may go below zero, delaying later callers.
   *
   * @param cost {@code > 0} and finite
   * @return tokens left, the smallest over the limits
   */
  double charge(double cost) throws StoreUnavailableException, InterruptedException;

  /**
   * Gives back {@code cost} tokens, never beyond each limit's capacity.
   *
   * @param cost {@code > 0} and finite
   * @return tokens left, the smallest over the limits
   */
  double refund(double cost) throws StoreUnavailableException, InterruptedException;

  /**
   * {@link #charge} without blocking a thread on the store's answer; the default answers on the calling thread.
   *
   * @throws IllegalArgumentException for a bad cost
   */
  default CompletionStage<Double> chargeAsync(double cost) {
    try {
      return CompletableFuture.completedFuture(charge(cost));
    } catch (StoreUnavailableException e) {
      return CompletableFuture.failedFuture(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * {@link #refund} without blocking a thread on the store's answer; the default answers on the calling thread.
   *
   * @throws IllegalArgumentException for a bad cost
   */
  default CompletionStage<Double> refundAsync(double cost) {
    try {
      return CompletableFuture.completedFuture(refund(cost));
    } catch (StoreUnavailableException e) {
      return CompletableFuture.failedFuture(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Prepares the bucket's store now (loads a script, opens a connection), so that the first calls of a burst do not
   * each pay for it. Optional; the default does nothing.
   *
   * @throws StoreUnavailableException when the store does not answer
   */
  default void preload() throws StoreUnavailableException, InterruptedException {}

  /**
   * This process makes no more calls through the bucket: what it registered in a shared store (its configuration)
   * stops counting for the fleet, unless another live process uses the same. Best effort, without waiting for the
   * store; the default does nothing.
   */
  default void close() {}

  /**
   * Whether a caller still waiting for {@code granted}'s slot may leave on it, answered from this process's own calls
   * without a round trip. {@link Validity#STATE_LOST}: the state that booked it is gone (a store restarted empty,
   * failed over to a replica that had not seen it, a deleted key) and a new one has answered since, so the caller
   * must book again (leaving could join the new state's burst). {@link Validity#RATE_CUT}: the provider refused a
   * call and the rate was cut since, so the slot belongs to the old rate. The default: always valid.
   */
  default Validity validity(Acquisition granted) {
    return Validity.VALID;
  }

  /**
   * For a slot {@link #validity} says {@link Validity#RATE_CUT}: the same booking at the rate in force, its slot moved
   * as the cut moved every slot booked before it (in their order, never earlier than the bucket would book it now),
   * answered from what this process heard of the cut, without a round trip; null when this process cannot tell (it
   * missed a cut, or the slot had come before the cut): then the caller books again. The default: null.
   */
  default Acquisition retimed(Acquisition granted) {
    return null;
  }

  /**
   * The provider answered 429 to a call this bucket admitted ({@code booked}): tells the bucket, which may cut the
   * rate (when the call was booked under the current one) and hold every slot back until the provider's
   * {@code retryAfter}, within its bounds. Never raises the rate. The default does nothing.
   *
   * @param retryAfter how long the provider asked to wait; {@link Duration#ZERO} when it did not say
   * @return what came of it
   * @throws StoreUnavailableException when the bucket's store does not answer
   */
  default Refusal providerRefused(Acquisition booked, Duration retryAfter)
      throws StoreUnavailableException, InterruptedException {
    return Refusal.NO_CUT;
  }

  /**
   * A cap of {@code capacity} calls in flight beside this bucket, for calls that book their slot here: the store
   * chooses it. The default is a {@link LocalPermitPool}, one process's own; a shared store returns a pool the fleet
   * shares that books the permit and the slot in one decision, both or neither.
   */
  default PermitPool permitPool(String name, int capacity, Duration lease) {
    return new LocalPermitPool(name, capacity, lease);
  }

  /**
   * What this process last heard of the bucket's shared state (the rate in force, the fleet's configurations, the
   * provider's hold, repairs), without I/O; {@link BucketReadings#NONE} for a bucket that shares nothing.
   */
  default BucketReadings readings() {
    return BucketReadings.NONE;
  }

  /** Whether a booked slot may still be left on: see {@link #validity}. */
  enum Validity {
    /** Leave on it. */
    VALID,
    /** The state that booked it is gone: book again. */
    STATE_LOST,
    /** The rate that booked it was cut since: its slot moves ({@link #retimed}), or it books again. */
    RATE_CUT
  }

  /** What a provider's refusal did: see {@link #providerRefused}. */
  enum Refusal {
    /** The rate was cut (and the provider's hold set, when it gave one). */
    CUT,
    /** Not counted: this process's word is bounded (it made the last cut, and others ask since without a 429). */
    NOT_COUNTED,
    /** Nothing changed: old news (the call was booked under a rate cut since), or the bucket does not adapt. */
    NO_CUT
  }
}
