package io.pixquota.bacen;

import java.time.Duration;

/**
 * The bucket would have made this call wait longer than allowed, so it was not sent and consumed nothing. Rising
 * numbers of these mean demand has outgrown the contracted quota.
 */
public final class ThrottleRefusedException extends ThrottleException {
  private static final long serialVersionUID = 1L;
  private final Duration neededWait;
  private final Duration maxWait;

  public ThrottleRefusedException(String bucket, Duration neededWait, Duration maxWait) {
    super(bucket, "would make this call wait " + neededWait.toMillis() + " ms, more than its max wait "
        + maxWait.toMillis() + " ms; the call was not sent", null);
    this.neededWait = neededWait;
    this.maxWait = maxWait;
  }

  /** The wait the call would have needed for its slot. */
  public Duration neededWait() {
    return neededWait;
  }

  /** The max wait in force for this call: the configured one, or less if the call's timeout left less. */
  public Duration maxWait() {
    return maxWait;
  }
}
