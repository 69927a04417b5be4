package io.pixquota.bacen;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A token bucket, possibly shared by many processes, that books slots instead of refusing: a call that finds too few
 * tokens is told how long to wait for its own slot, and proceeds after exactly that wait.
 *
 * <p>Blocking operations, one Redis round trip each in {@link RedisTokenBucket} (and
 * {@link #acquireAsync} / {@link #refundAsync}, which block no thread):
 * <ul>
 *   <li>{@link #acquire(double, Duration)} books a slot or refuses, without sleeping;</li>
 *   <li>{@link #charge(double)} takes tokens after the fact (a provider that charges more for some responses);</li>
 *   <li>{@link #refund(double)} gives tokens back, never beyond capacity.</li>
 * </ul>
 * Every implementation passes the same contract test (burst, refill, booking ahead, refusal consumes nothing,
 * charge and refund, several limits, cost validation, a clock that never runs backwards). Implementations are
 * threadsafe.
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
   * @throws BucketUnavailableException when the bucket's store does not answer in time or fails
   * @throws InterruptedException       when interrupted while waiting for the store's answer
   */
  Acquisition acquire(double cost, Duration maxWait) throws BucketUnavailableException, InterruptedException;

  /**
   * {@link #acquire} without blocking a thread on the store's answer: the stage completes with the acquisition, or
   * exceptionally with a {@link BucketUnavailableException}. Bad input still throws at once, before any I/O. The
   * default answers on the calling thread with {@link #acquire} (right for an in-memory bucket, a blocking call for
   * any other); {@link RedisTokenBucket} sends its script with Redisson's async API.
   *
   * @throws IllegalArgumentException for a bad cost or maxWait
   */
  default CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait) {
    try {
      return CompletableFuture.completedFuture(acquire(cost, maxWait));
    } catch (BucketUnavailableException e) {
      return CompletableFuture.failedFuture(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Takes {@code cost} more tokens now, whatever is left; the balance may go below zero, delaying later callers.
   *
   * @param cost {@code > 0} and finite
   * @return tokens left, the smallest over the limits
   */
  double charge(double cost) throws BucketUnavailableException, InterruptedException;

  /**
   * Gives back {@code cost} tokens, never beyond each limit's capacity.
   *
   * @param cost {@code > 0} and finite
   * @return tokens left, the smallest over the limits
   */
  double refund(double cost) throws BucketUnavailableException, InterruptedException;

  /**
   * {@link #refund} without blocking a thread on the store's answer; the default answers on the calling thread.
   *
   * @throws IllegalArgumentException for a bad cost
   */
  default CompletionStage<Double> refundAsync(double cost) {
    try {
      return CompletableFuture.completedFuture(refund(cost));
    } catch (BucketUnavailableException e) {
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
   * @throws BucketUnavailableException when the store does not answer
   */
  default void preload() throws BucketUnavailableException, InterruptedException {}

  /**
   * Whether the state that booked {@code granted} is gone: Redis restarted empty, failed over to a replica that had
   * not seen it, or the key was deleted, and a new state has answered since. A caller still waiting for such a slot
   * must book again: the new state does not know the slot, and leaving on it could join the new state's burst.
   * Answers from this process's own calls only, without a round trip. The default: never.
   */
  default boolean lost(Acquisition granted) {
    return false;
  }

  /**
   * Whether the provider refused a call since {@code granted} was booked and the fleet's rate was cut: the slot
   * belongs to the old rate, and a caller still waiting for it must book again. Answers from this process's own
   * calls only, without a round trip. The default: never.
   */
  default boolean superseded(Acquisition granted) {
    return false;
  }

  /**
   * The provider answered 429 to a call this bucket admitted ({@code booked}): tells the bucket, which may cut the
   * shared rate (when the call was booked under the current rate) and holds every slot back until the provider's
   * {@code retryAfter}, when it gave one. Never raises the rate. The default does nothing.
   *
   * @param retryAfter how long the provider asked to wait; {@link Duration#ZERO} when it did not say
   * @return whether the rate was cut
   * @throws BucketUnavailableException when the bucket's store does not answer
   */
  default boolean providerRefused(Acquisition booked, Duration retryAfter)
      throws BucketUnavailableException, InterruptedException {
    return false;
  }

  /** The share of the configured rate in force, as last seen by this process: 1 unless the provider cut it. */
  default double rateFactor() {
    return 1;
  }

  /**
   * How many configurations of this bucket were live when this process last heard from it (its own included): more
   * than one while replicas run different limits.
   */
  default int configurations() {
    return 1;
  }

  /**
   * What is left of the hold the provider's last refusal put on the bucket (its Retry-After, at most the rate
   * adaptation's {@link RateAdaptation#maxProviderHold()}), as this process last heard: zero when none.
   */
  default Duration providerHoldLeft() {
    return Duration.ZERO;
  }

  /**
   * How many of this process's calls found fields of the bucket's shared state that could not be trusted (garbage,
   * a lease or a hold beyond the fleet's bounds, a clock that went back) and had them reset; 0 for a bucket with no
   * shared state.
   */
  default long stateRepairs() {
    return 0;
  }

  /**
   * How many 429s this process reported ({@link #providerRefused}) that did not count against the fleet's rate: it
   * made the last cut, half its calls since met 429s, and other replicas ask for slots without any. 0 by default.
   */
  default long refusalsNotCounted() {
    return 0;
  }
}
