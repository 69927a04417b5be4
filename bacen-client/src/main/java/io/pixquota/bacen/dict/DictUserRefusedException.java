package io.pixquota.bacen.dict;

import java.time.Duration;

/**
 * The end user's own bucket (a user-scope policy) has too few tokens for this lookup: refused at once, without
 * waiting (its refill is minutes a token) and without calling DICT, which would refuse it and charge the participant.
 * A scanner meets this after a few lookups of keys that do not exist.
 */
public final class DictUserRefusedException extends DictException {
  private static final long serialVersionUID = 1L;
  private final String policy;
  private final Duration retryAfter;

  DictUserRefusedException(String policy, Duration retryAfter) {
    super("the end user's " + policy + " bucket has too few tokens for a lookup; try again in "
        + Math.max(1, (retryAfter.toMillis() + 999) / 1000) + " s; not sent", null);
    this.policy = policy;
    this.retryAfter = retryAfter;
  }

  /** The user-scope policy whose bucket refused. */
  public String policy() {
    return policy;
  }

  /** When the user's bucket will hold this lookup's cost. */
  public Duration retryAfter() {
    return retryAfter;
  }
}
