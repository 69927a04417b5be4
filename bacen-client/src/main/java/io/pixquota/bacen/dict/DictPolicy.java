package io.pixquota.bacen.dict;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * One of DICT's rate-limiting policies on {@code getEntry}, as the SDK mirrors it: a token bucket of a scope (USER:
 * one per end user, keyed by the pseudonymised {@code PI-PayerId}; PSP: the participant's), its size (a legal
 * person's own at the user scope, when the counting splits them), what an answer costs, what a settled payment gives
 * back, and the key types it counts.
 *
 * @param name          the policy's name, as DICT's headers and {@code GET /policies} name it
 * @param scope         USER or PSP
 * @param capacity      the bucket's size (a natural person's, at the user scope)
 * @param refillTokens  tokens added per {@code refillPeriod}
 * @param refillPeriod  the refill period
 * @param capacityLegal the bucket of a legal person (the same as {@code capacity} when the counting does not split)
 * @param refillLegal   a legal person's tokens per period
 * @param cost200       what a 200 costs (the mirror counts any status but 404 and 500 as much)
 * @param cost404       what a 404 costs
 * @param credit        what a settled payment gives back (a natural person's)
 * @param creditLegal   what it gives back for a legal person
 * @param keyTypes      the key types the policy counts
 */
public record DictPolicy(String name, Scope scope, double capacity, double refillTokens, Duration refillPeriod,
    double capacityLegal, double refillLegal, double cost200, double cost404, double credit, double creditLegal,
    Set<DictKey.Type> keyTypes) {
  /** The scope a policy's buckets are kept by. */
  public enum Scope { USER, PSP }

  /** The person type of an end user: the user scope sizes its bucket by it when the counting splits them. */
  public enum PayerType { NATURAL_PERSON, LEGAL_PERSON }

  /** @throws IllegalArgumentException naming the policy and the value */
  public DictPolicy {
    Checks.notBlank("name", name);
    if (!name.matches("[A-Z0-9_]{1,48}")) {
      throw new IllegalArgumentException("policy name must be 1 to 48 upper-case letters, digits or '_', but was '"
          + name + "'");
    }
    Objects.requireNonNull(scope, "scope cannot be null");
    Checks.tokens(name + " capacity", capacity);
    Checks.tokens(name + " capacityLegal", capacityLegal);
    Checks.tokens(name + " refillTokens", refillTokens);
    Checks.tokens(name + " refillLegal", refillLegal);
    Checks.positiveAtMostADay(name + " refillPeriod", refillPeriod);
    for (double c : new double[] {cost200, cost404, credit, creditLegal}) {
      if (!(c >= 0) || c > Math.min(capacity, capacityLegal)) {
        throw new IllegalArgumentException("policy " + name + ": costs and credits must be within 0..capacity "
            + Math.min(capacity, capacityLegal) + ", but one was " + c);
      }
    }
    keyTypes = Set.copyOf(keyTypes);
    if (keyTypes.isEmpty()) {
      throw new IllegalArgumentException("policy " + name + " counts no key type");
    }
  }

  /**
   * What an answer of this status costs, as the mirror counts it: a 500 nothing, a 404 {@code cost404}, any other
   * answer (a 429 too: a counting may charge refusals) {@code cost200}.
   */
  public double cost(int status) {
    if (status == 500) {
      return 0;
    }
    return status == 404 ? cost404 : cost200;
  }

  /** The most any answer costs: what the SDK books before the lookup is sent. */
  public double worstCost() {
    return Math.max(cost200, cost404);
  }

  public boolean counts(DictKey.Type type) {
    return keyTypes.contains(type);
  }

  /** The bucket's size for this payer. */
  public double capacity(PayerType payer) {
    return scope == Scope.USER && payer == PayerType.LEGAL_PERSON ? capacityLegal : capacity;
  }

  /** Tokens per second for this payer. */
  public double ratePerSecond(PayerType payer) {
    double tokens = scope == Scope.USER && payer == PayerType.LEGAL_PERSON ? refillLegal : refillTokens;
    return tokens / (refillPeriod.toNanos() / 1e9);
  }

  /** What a settled payment gives back for this payer. */
  public double credit(PayerType payer) {
    return scope == Scope.USER && payer == PayerType.LEGAL_PERSON ? creditLegal : credit;
  }

  /** This policy with a bucket of another size, for both person types (the provider's {@code GET /policies}). */
  public DictPolicy resized(double newCapacity, double newRefillTokens, Duration newPeriod) {
    return new DictPolicy(name, scope, newCapacity, newRefillTokens, newPeriod, newCapacity, newRefillTokens,
        Math.min(cost200, newCapacity), Math.min(cost404, newCapacity), Math.min(credit, newCapacity),
        Math.min(creditLegal, newCapacity), keyTypes);
  }
}
