package io.pixquota.harness;

/**
 * What "0 x 429" means on a machine that is not idle: how many 429s a provider's token bucket can answer to a client
 * bucket's calls, given how far from their slots the calls reached it (the jitter the run actually had).
 *
 * <p>The client's slots obey {@code capacity + rate x T} in any window of length T; a call reaches the provider
 * {@code d} after its slot, with {@code 0 <= d <= J}; so arrivals in any window of length T number at most
 * {@code capacity + rate x (T + J)}. Take a refusal at time t, and the last instant s before it at which the
 * provider's bucket (providerCapacity, providerRate >= rate) was full: it admitted more than
 * {@code providerCapacity + providerRate (t - s) - 1} calls in (s, t], and arrivals there are bounded as above, so the
 * refusals in (s, t] number fewer than {@code capacity + rate x J - providerCapacity + 1}. A run whose provider's
 * bucket is never full again after it starts (a burst, a saturating soak) has one such stretch: at most
 * {@code ceil(capacity + rate x J - providerCapacity)} refusals, and none when {@code capacity + rate x J <=
 * providerCapacity}, which is what the quota planner guarantees for its J. The jitter is measured by the client, as
 * the SDK's meters give it: a call reaches the provider no later than its lateness (slot to send,
 * {@code bacen.throttle.lateness}) plus its answer time (send to answer, {@code bacen.throttle.answer}) after its slot.
 */
public final class RefusalBound {
  private RefusalBound() {}

  /**
   * @param jitterSeconds how far after its slot any call reached the provider, at most (measured: the lateness max plus
   *                      the answer time max)
   * @return the most 429s such a run can meet
   * @throws IllegalArgumentException when the client's rate is above the provider's (then no bound holds)
   */
  public static long allowed(double providerCapacity, double providerRate, double capacity, double rate,
      double jitterSeconds) {
    if (rate > providerRate) {
      throw new IllegalArgumentException("rate " + rate + " is above the provider's " + providerRate
          + ": no bound holds");
    }
    double excess = capacity + rate * Math.max(0, jitterSeconds) - providerCapacity;
    return excess <= 1e-9 ? 0 : (long) Math.ceil(excess - 1e-9);
  }
}
