package io.pixquota.bacen.dict;

import io.pixquota.throttle.Priority;
import java.util.Objects;

/**
 * One DICT lookup to make: the key, the end user it is for (the user's own id, a CPF or an account: pseudonymised
 * before it leaves the SDK), the user's person type, the payment's end-to-end id (null: the SDK makes one, returned in
 * {@link DictEntry#endToEndId()}), its priority (null: the client's default), and how far the caller trusts it (null:
 * {@link Trust#NORMAL}). {@link #toString()} shows neither the key nor the user whole.
 */
public record DictLookup(String key, String payerId, DictPolicy.PayerType payerType, String endToEndId,
    Priority priority, Trust trust) {
  /**
   * The caller's own word on a lookup (its fraud checks, the customer's relationship), which decides how much of the
   * participant's reserve it may use ({@link DictReserve}).
   */
  public enum Trust {
    /** Not held to the reserve: the caller vouches for the payer (e.g. a long-standing customer). */
    TRUSTED,
    /** Held to the reserve unless the payer's own standing pays for it. */
    NORMAL,
    /** Held to the larger risky reserve whatever the payer's standing, and earns none: the caller's checks doubt it. */
    RISKY
  }

  public DictLookup {
    Objects.requireNonNull(key, "key cannot be null");
    Objects.requireNonNull(payerId, "payerId cannot be null");
    Objects.requireNonNull(payerType, "payerType cannot be null");
  }

  /** A lookup of the caller's default trust ({@link Trust#NORMAL}). */
  public DictLookup(String key, String payerId, DictPolicy.PayerType payerType, String endToEndId,
      Priority priority) {
    this(key, payerId, payerType, endToEndId, priority, null);
  }

  /** A natural person's lookup, with an end-to-end id of the SDK's and the default priority. */
  public static DictLookup of(String key, String payerId) {
    return new DictLookup(key, payerId, DictPolicy.PayerType.NATURAL_PERSON, null, null, null);
  }

  public DictLookup withPayerType(DictPolicy.PayerType type) {
    return new DictLookup(key, payerId, type, endToEndId, priority, trust);
  }

  /** The end-to-end id of the payment this lookup is for: the credit of {@link DictClient#paymentSettled} names it. */
  public DictLookup withEndToEndId(String e2eid) {
    return new DictLookup(key, payerId, payerType, e2eid, priority, trust);
  }

  public DictLookup withPriority(Priority p) {
    return new DictLookup(key, payerId, payerType, endToEndId, p, trust);
  }

  /** How far the caller trusts this lookup (null: {@link Trust#NORMAL}). */
  public DictLookup withTrust(Trust t) {
    return new DictLookup(key, payerId, payerType, endToEndId, priority, t);
  }

  @Override
  public String toString() {
    return "DictLookup{key=..." + key.substring(Math.max(0, key.length() - 3)) + ", payer=****, " + payerType
        + (priority == null ? "" : ", " + priority) + (trust == null ? "" : ", " + trust) + "}";
  }
}
