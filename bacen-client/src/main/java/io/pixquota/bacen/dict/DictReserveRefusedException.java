package io.pixquota.bacen.dict;

import java.time.Duration;

/**
 * The participant's bucket is down to its reserve ({@link DictReserve}), which this lookup may not use: its payer
 * has too little standing (a payer never seen, or one whose lookups found nothing), or the caller marked it
 * {@link DictLookup.Trust#RISKY}. Refused at once, without calling DICT; the reserve is kept for payers with standing.
 * Not sent.
 */
public final class DictReserveRefusedException extends DictException {
  private static final long serialVersionUID = 1L;

  /** Why the reserve refused the lookup. */
  public enum Reason {
    /** The payer's standing does not pay for a lookup in the reserve. */
    NO_STANDING,
    /** The caller marked the lookup risky: held to the risky reserve. */
    RISKY
  }

  private final String policy;
  private final Reason reason;
  private final Duration retryAfter;

  DictReserveRefusedException(String policy, Reason reason, Duration retryAfter, boolean local) {
    super("the participant's " + policy + " bucket is down to its reserve, which "
        + (reason == Reason.RISKY ? "a lookup marked RISKY" : "a payer without standing") + " may not use; it could "
        + "pass in " + Math.max(1, (retryAfter.toMillis() + 999) / 1000) + " s at the earliest"
        + (local ? " (known from an earlier answer)" : "") + "; not sent", null);
    this.policy = policy;
    this.reason = reason;
    this.retryAfter = retryAfter;
  }

  /** The participant-scope policy whose reserve refused. */
  public String policy() {
    return policy;
  }

  public Reason reason() {
    return reason;
  }

  /** The earliest the bucket could hold its reserve and this lookup again (later, if others keep spending it). */
  public Duration retryAfter() {
    return retryAfter;
  }
}
