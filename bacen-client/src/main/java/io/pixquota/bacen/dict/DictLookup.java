package io.pixquota.bacen.dict;

import io.pixquota.throttle.Priority;
import java.util.Objects;

/**
 * One DICT lookup to make: the key, the end user it is for (the user's own id, a CPF or an account: pseudonymised
 * before it leaves the SDK), the user's person type, the payment's end-to-end id (null: the SDK makes one, returned in
 * {@link DictEntry#endToEndId()}), and its priority (null: the client's default). {@link #toString()} shows neither
 * the key nor the user whole.
 */
public record DictLookup(String key, String payerId, DictPolicy.PayerType payerType, String endToEndId,
    Priority priority) {
  public DictLookup {
    Objects.requireNonNull(key, "key cannot be null");
    Objects.requireNonNull(payerId, "payerId cannot be null");
    Objects.requireNonNull(payerType, "payerType cannot be null");
  }

  /** A natural person's lookup, with an end-to-end id of the SDK's and the default priority. */
  public static DictLookup of(String key, String payerId) {
    return new DictLookup(key, payerId, DictPolicy.PayerType.NATURAL_PERSON, null, null);
  }

  public DictLookup withPayerType(DictPolicy.PayerType type) {
    return new DictLookup(key, payerId, type, endToEndId, priority);
  }

  /** The end-to-end id of the payment this lookup is for: the credit of {@link DictClient#paymentSettled} names it. */
  public DictLookup withEndToEndId(String e2eid) {
    return new DictLookup(key, payerId, payerType, e2eid, priority);
  }

  public DictLookup withPriority(Priority p) {
    return new DictLookup(key, payerId, payerType, endToEndId, p);
  }

  @Override
  public String toString() {
    return "DictLookup{key=..." + key.substring(Math.max(0, key.length() - 3)) + ", payer=****, " + payerType
        + (priority == null ? "" : ", " + priority) + "}";
  }
}
