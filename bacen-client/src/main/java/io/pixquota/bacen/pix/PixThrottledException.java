package io.pixquota.bacen.pix;

/**
 * Our own shared bucket did not let the call go: its slot was further away than the max wait
 * ({@link io.pixquota.bacen.ThrottleRefusedException} as cause), or the bucket was unavailable under FAIL_CLOSED
 * ({@link io.pixquota.bacen.ThrottleUnavailableException} as cause). The call was not sent to the provider.
 */
public final class PixThrottledException extends PixException {
  private static final long serialVersionUID = 1L;

  PixThrottledException(String message, Throwable cause) {
    super(message, 0, null, null, cause);
  }
}
