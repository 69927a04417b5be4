package io.pixquota.bacen.dict;

import io.pixquota.throttle.BucketGroup.Credit;
import io.pixquota.throttle.BucketGroup.Give;
import io.pixquota.throttle.BucketGroup.GroupBucket;
import io.pixquota.throttle.BucketGroup.Take;
import io.pixquota.throttle.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The mirror's buckets of a lookup, and the booking rule: a lookup books each policy that counts it at its
 * <b>worst</b> cost (a 404's, when a 404 costs more), once the bucket holds 1 token (DICT's own rule: it admits at 1
 * and charges the answer after, into debt), and the answer gives back what it did not cost. So the mirror never holds
 * more than DICT does, even while lookups are in flight: the provider's buckets cannot run dry because of a lookup the
 * mirror let through (the property test's claim). The cheap case then a debt would leave the mirror above DICT for the
 * whole of a 404's flight. A user-scope bucket refuses at once; a participant's waits (booked ahead).
 */
final class DictBuckets {
  private volatile DictPolicies table;

  /** A lookup's policies and their takes, in the same order. */
  record Plan(List<DictPolicy> policies, List<Take> takes, DictPolicy.PayerType payerType) {}

  DictBuckets(DictPolicies table) {
    this.table = table;
  }

  DictPolicies table() {
    return table;
  }

  /** Replaces the table (the provider's {@code GET /policies}): lookups planned after this use it. */
  void table(DictPolicies newTable) {
    this.table = newTable;
  }

  /** The takes of a lookup of this key type for this end user (its bucket's name in the mirror). */
  Plan plan(DictKey.Type type, String userBucket, DictPolicy.PayerType payer) {
    List<DictPolicy> policies = new ArrayList<>();
    List<Take> takes = new ArrayList<>();
    for (DictPolicy p : table.policies()) {
      if (p.counts(type)) {
        double worst = p.worstCost();
        policies.add(p);
        takes.add(new Take(bucket(p, userBucket, payer), worst, Math.min(1, worst),
            p.scope() == DictPolicy.Scope.PSP));
      }
    }
    return new Plan(List.copyOf(policies), List.copyOf(takes), payer);
  }

  /** A policy's bucket: the participant's (named by the policy), or the end user's ({@code u:<pseudonym>}). */
  static GroupBucket bucket(DictPolicy p, String userBucket, DictPolicy.PayerType payer) {
    String name = p.scope() == DictPolicy.Scope.USER ? "u:" + userBucket : p.name();
    return new GroupBucket(name, Limit.of(p.capacity(payer), p.ratePerSecond(payer)));
  }

  /** What an answer of {@code status} gives back to each bucket: the worst booked, less what the status costs. */
  static List<Give> refunds(Plan plan, int status) {
    List<Give> gives = new ArrayList<>();
    for (int i = 0; i < plan.takes().size(); i++) {
      double back = plan.takes().get(i).cost() - plan.policies().get(i).cost(status);
      if (back > 0) {
        gives.add(new Give(plan.takes().get(i).bucket(), Give.Kind.REFUND, back));
      }
    }
    return gives;
  }

  /** The credit a settled payment earns the lookup's buckets, remembered under its end-to-end id; null: none. */
  static Credit credit(Plan plan, String endToEndId, Duration ttl) {
    List<Give> gives = new ArrayList<>();
    for (int i = 0; i < plan.takes().size(); i++) {
      double c = plan.policies().get(i).credit(plan.payerType());
      if (c > 0) {
        gives.add(new Give(plan.takes().get(i).bucket(), Give.Kind.REFUND, c));
      }
    }
    return gives.isEmpty() ? null : new Credit(endToEndId, gives, ttl);
  }

  /** The most a credit gives one bucket, in this table: the bound a redeem puts on a credit read back from Redis. */
  double maxCredit() {
    double most = 0;
    for (DictPolicy p : table.policies()) {
      most = Math.max(most, Math.max(p.credit(), p.creditLegal()));
    }
    return most;
  }
}
