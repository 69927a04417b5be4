package io.pixquota.bacen;

import java.io.IOException;
import java.time.Duration;

/**
 * The bucket would have made this call wait longer than allowed, so it was not sent and consumed nothing. An
 * {@link IOException}, because OkHttp reports those to an async call's callback (a RuntimeException would escape on
 * the dispatcher thread). Rising numbers of these mean demand has outgrown the contracted quota.
 */
public final class ThrottleRefusedException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String bucket;
  private final Duration neededWait;
  private final Duration maxWait;

  public ThrottleRefusedException(String bucket, Duration neededWait, Duration maxWait) {
    super("Bucket '" + bucket + "' would make this call wait " + neededWait.toMillis() + " ms, more than its max wait "
        + maxWait.toMillis() + " ms; the call was not sent");
    this.bucket = bucket;
    this.neededWait = neededWait;
    this.maxWait = maxWait;
  }

  public String bucket() {
    return bucket;
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
