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
 */
public record ThrottleSettings(Duration maxWait, Priority defaultPriority, Duration batchHorizon,
    String signalHeader, int maxInFlight, Duration permitLease, QuotaHeaders quotaHeaders) {
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
        + (maxInFlight == 0 ? "" : ", maxInFlight=" + maxInFlight + ", permitLease=" + permitLease)
        + (quotaHeaders == null ? "" : ", quotaHeaders=" + quotaHeaders);
  }

  /** Why a max wait of {@code maxWait} cannot go with a call timeout of {@code callTimeout}. */
  public static String maxWaitAboveCallTimeout(Duration maxWait, Duration callTimeout) {
    return "maxWait " + maxWait.toMillis() + " ms must be shorter than callTimeout " + callTimeout.toMillis()
        + " ms: the call timeout counts the wait for the slot, so calls would be refused after "
        + callTimeout.toMillis() + " ms; raise callTimeout above maxWait plus the provider's answer time";
  }
}
