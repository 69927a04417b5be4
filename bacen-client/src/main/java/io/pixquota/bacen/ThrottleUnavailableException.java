package io.pixquota.bacen;

import java.io.IOException;

/**
 * The shared bucket could not be reached (Redis down, slow or failing) and the policy is
 * {@link RedisUnavailablePolicy#FAIL_CLOSED}: the call was not sent. An {@link IOException} for the same reason as
 * {@link ThrottleRefusedException}.
 */
public final class ThrottleUnavailableException extends IOException {
  private static final long serialVersionUID = 1L;
  private final String bucket;

  public ThrottleUnavailableException(String bucket, Throwable cause) {
    super("Bucket '" + bucket + "' is unavailable and the policy is FAIL_CLOSED; the call was not sent: "
        + cause.getMessage(), cause);
    this.bucket = bucket;
  }

  public String bucket() {
    return bucket;
  }
}
