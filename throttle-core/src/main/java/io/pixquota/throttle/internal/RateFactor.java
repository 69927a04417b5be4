package io.pixquota.throttle.internal;

import java.util.Map;

/**
 * The factor of the configured rates at a time, from the last cut (and, after a lone one, the factor before), and the
 * refill arithmetic it scales: {@code token_bucket.lua}'s, in its order. A part of {@link BucketStep}; the operator's
 * read of a state uses it too.
 */
public record RateFactor(Long cutAt, Double cutFactor, Double before, StepSettings.Adaptation a) {
  /**
   * A limit's tokens refilled from {@code fromMicros} to {@code toMicros} at {@code factor} of its refill, capped at
   * its capacity: the script's arithmetic, in its order (the step and the operator's read of the state both use it).
   */
  public static double refilled(double capacity, double refill, double stored, double factor, long fromMicros,
      long toMicros) {
    return Math.min(capacity, stored + refill * factor * (double) (toMicros - fromMicros) / 1000000);
  }

  /**
   * The factor of the configured rates at {@code micros} in the state {@code hash}, as the step reads it (an
   * unreadable cut counts as none): what the step refills with; 1 when never cut. For reading a state without
   * stepping it.
   */
  public static double factorAt(Map<String, String> hash, long micros, long redisNowMicros,
      StepSettings.Adaptation a) {
    StoredState r = new StoredState(hash, micros, redisNowMicros, a.maxHoldMicros());
    return new RateFactor(r.k, r.fCut, r.p, a).at(micros);
  }

  /** The factor at {@code micros}: 1 when never cut, never below the floor. */
  double at(long micros) {
    if (cutAt == null) {
      return 1;
    }
    long lone = a.loneRecoveryMicros();
    double v;
    if (before != null && lone > 0 && micros - cutAt < lone) {
      v = cutFactor + (before - cutFactor) * (double) (micros - cutAt) / lone;
    } else if (before != null && lone > 0) {
      v = before + a.increasePerSecond() * (double) (micros - cutAt - lone) / 1000000;
    } else {
      v = cutFactor + a.increasePerSecond() * (double) (micros - cutAt) / 1000000;
    }
    if (v > 1) {
      return 1;
    } else if (v < a.floor()) {
      return a.floor();
    }
    return v;
  }

  /** How long until the rate is back to whole from {@code factorNow} at {@code at}, in milliseconds. */
  double millisToFull(long at, double factorNow) {
    return before != null && a.loneRecoveryMicros() > 0 && at - cutAt < a.loneRecoveryMicros()
        ? (double) (a.loneRecoveryMicros() - (at - cutAt)) / 1000 + (1 - before) / a.increasePerSecond() * 1000
        : (1 - factorNow) / a.increasePerSecond() * 1000;
  }
}
