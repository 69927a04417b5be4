package io.pixquota.bacen.pix;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;

/**
 * The retry of 429, 503 and I/O errors (GETs only, each attempt through the bucket again): a part of
 * {@link PixClientConfig}.
 *
 * @param maxAttempts    attempts in all (1 = no retry)
 * @param initialBackoff the first backoff's cap
 * @param maxBackoff     the cap of every backoff
 * @param maxTotal       the budget of all attempts and waits, from the first attempt
 */
public record RetrySettings(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxTotal) {
  /** @throws IllegalArgumentException naming the setting and its value */
  public RetrySettings {
    if (maxAttempts < 1 || maxAttempts > 20) {
      throw new IllegalArgumentException("maxAttempts must be within 1..20, but was " + maxAttempts);
    }
    Checks.positiveAtMostADay("initialBackoff", initialBackoff);
    Checks.positiveAtMostADay("maxBackoff", maxBackoff);
    Checks.positiveAtMostADay("maxTotal", maxTotal);
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff must be >= initialBackoff " + initialBackoff + ", but was "
          + maxBackoff);
    }
  }

  @Override
  public String toString() {
    return "retry=" + maxAttempts + " attempts within " + maxTotal;
  }
}
