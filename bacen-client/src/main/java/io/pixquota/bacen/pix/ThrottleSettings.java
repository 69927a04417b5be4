package io.pixquota.bacen.pix;

import io.pixquota.throttle.Priority;
import io.pixquota.throttle.QuotaHeaders;
import java.time.Duration;
import java.util.Optional;

/**
 * How the client's calls wait for their slots: a part of {@link PixClientConfig}.
 *
 * @param maxWait         the longest a call waits for its slot
 * @param defaultPriority the class of calls made without one ({@link PixClient#getPix(String)})
 * @param batchHorizon    how far ahead a {@link Priority#BATCH} call may book its slot
 * @param signalHeader    the header by which the provider's own 429s are known; null: every 429 counts
 * @param maxInFlight     calls in flight at once, fleet-wide (each holds a permit from its slot to its answer); 0: no
 *                        cap
 * @param permitLease     how long a permit lasts when its holder dies; null without a cap
 * @param quotaHeaders    the header family the provider states its remaining quota in, read on every answer to
 *                        lower the shared bucket; null: not read
 * @param providerTimeout how long the provider may keep working on a call after it was sent: a permit of a call
 *                        that gave up after its send is held this long after it
 */
public record ThrottleSettings(Duration maxWait, Priority defaultPriority, Duration batchHorizon,
    String signalHeader, int maxInFlight, Duration permitLease, QuotaHeaders quotaHeaders,
    Duration providerTimeout) {
  /** The provider timeout when none is given, unless the call timeout is longer: 30 s. */
  public static final Duration DEFAULT_PROVIDER_TIMEOUT = Duration.ofSeconds(30);

  /** {@code given}, or the longer of the call timeout and {@link #DEFAULT_PROVIDER_TIMEOUT}. */
  static Duration providerTimeout(Duration given, Duration callTimeout) {
    if (given != null) {
      return given;
    }
    return callTimeout.compareTo(DEFAULT_PROVIDER_TIMEOUT) > 0 ? callTimeout : DEFAULT_PROVIDER_TIMEOUT;
  }

  /** A permit is held from the slot's booking until the provider can no longer be working on the call. */
  static void checkLease(Duration permitLease, Duration maxWait, Duration providerTimeout) {
    if (permitLease.compareTo(maxWait.plus(providerTimeout)) <= 0) {
      throw new IllegalStateException("permitLease " + permitLease.toMillis() + " ms must be longer than maxWait "
          + maxWait.toMillis() + " ms plus providerTimeout " + providerTimeout.toMillis() + " ms: a permit is held "
          + "from the slot's booking until the provider can no longer be working on the call, and a live holder's "
          + "must not end first");
    }
  }
  /**
   * The header by which the provider's own 429s are known; empty: every 429 counts. See
   * {@link io.pixquota.throttle.ThrottleBuilder#quotaSignal(String)}.
   */
  public Optional<String> quotaSignal() {
    return Optional.ofNullable(signalHeader);
  }

  @Override
  public String toString() {
    return "maxWait=" + maxWait + ", defaultPriority=" + defaultPriority + ", batchHorizon=" + batchHorizon
        + ", quotaSignal=" + (signalHeader == null ? "any 429" : signalHeader)
        + (maxInFlight == 0 ? "" : ", maxInFlight=" + maxInFlight + ", permitLease=" + permitLease
            + ", providerTimeout=" + providerTimeout)
        + (quotaHeaders == null ? "" : ", quotaHeaders=" + quotaHeaders);
  }

  /** Why a max wait of {@code maxWait} cannot go with a call timeout of {@code callTimeout}. */
  public static String maxWaitAboveCallTimeout(Duration maxWait, Duration callTimeout) {
    return "maxWait " + maxWait.toMillis() + " ms must be shorter than callTimeout " + callTimeout.toMillis()
        + " ms: the call timeout counts the wait for the slot, so calls would be refused after "
        + callTimeout.toMillis() + " ms; raise callTimeout above maxWait plus the provider's answer time";
  }
}
