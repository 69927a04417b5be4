package io.pixquota.bacen.dict;

import io.pixquota.throttle.store.BucketGroup.Credit;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Standing;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.store.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The mirror's buckets of a lookup, and the booking rule: a lookup books each policy that counts it at its
 * <b>worst</b> cost (a 404's, when a 404 costs more), once the bucket holds 1 token (DICT's own rule: it admits at 1
 * and charges the answer after, into debt), and the answer gives back what it did not cost. So the mirror never holds
 * more than DICT does, even while lookups are in flight: the provider's buckets cannot run dry because of a lookup the
 * mirror let through (the property test's claim). The cheap case then a debt would leave the mirror above DICT for the
 * whole of a 404's flight. A user-scope bucket refuses at once; a participant's waits (booked ahead), and keeps its
 * reserve ({@link DictReserve}) from a lookup whose payer's standing (kept with the payer's own bucket, the
 * <i>holder</i>) does not pay for it.
 */
final class DictBuckets {
  private volatile DictPolicies table;

  /**
   * A lookup's policies and their takes, in the same order; the end user's bucket that holds the payer's standing
   * (null when the table has no user-scope policy), the standing that may use the reserves (read only, price 0,
   * unless the lookup is NORMAL; null without a holder), the lookup's trust and the reserve's price.
   */
  record Plan(List<DictPolicy> policies, List<Take> takes, DictPolicy.PayerType payerType, GroupBucket holder,
      Standing standing, DictLookup.Trust trust, int price) {}

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

  /** The takes of a lookup of this key type for this end user (its bucket's name in the mirror), of this trust. */
  Plan plan(DictKey.Type type, String userBucket, DictPolicy.PayerType payer, DictLookup.Trust trust,
      DictReserve reserve) {
    List<DictPolicy> policies = new ArrayList<>();
    List<Take> takes = new ArrayList<>();
    GroupBucket holder = null;
    for (DictPolicy p : table.policies()) {
      boolean psp = p.scope() == DictPolicy.Scope.PSP;
      if (!psp && holder == null) {
        holder = bucket(p, userBucket, payer);
      }
      if (p.counts(type)) {
        double worst = p.worstCost();
        policies.add(p);
        takes.add(new Take(bucket(p, userBucket, payer), worst, Math.min(1, worst), psp,
            psp ? reserve.tokens(trust, p.capacity(payer)) : 0));
      }
    }
    int price = holder == null ? 0 : (int) Math.min(reserve.price(), Math.floor(holder.limit().capacity()));
    Standing standing = holder == null ? null
        : new Standing(holder, trust == DictLookup.Trust.NORMAL ? price : 0); // else read, never spent
    return new Plan(List.copyOf(policies), List.copyOf(takes), payer, holder, standing, trust, price);
  }

  /**
   * What an answer of {@code status} earns the payer's standing: a found key 1 (a RISKY lookup none), a key that does
   * not exist minus the price; plus the price back when the booking spent it on a reserve, unless nothing came back
   * to say the key was not a scan ({@code status} 0: no answer).
   */
  static List<Give> earned(Plan plan, int status, boolean waived) {
    if (plan.holder() == null) {
      return List.of();
    }
    int earn = status == 200 ? (plan.trust() == DictLookup.Trust.RISKY ? 0 : 1) : status == 404 ? -plan.price() : 0;
    if (waived && status != 0) {
      earn += plan.price();
    }
    return earn == 0 ? List.of() : List.of(new Give(plan.holder(), Give.Kind.EARN, earn));
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

  /**
   * The credit a settled payment earns the lookup's buckets, remembered under its end-to-end id, and the standing it
   * earns its payer (the price: a settled payment weighs more than a found key); null: none.
   */
  static Credit credit(Plan plan, String endToEndId, Duration ttl) {
    List<Give> gives = new ArrayList<>();
    for (int i = 0; i < plan.takes().size(); i++) {
      double c = plan.policies().get(i).credit(plan.payerType());
      if (c > 0) {
        gives.add(new Give(plan.takes().get(i).bucket(), Give.Kind.REFUND, c));
      }
    }
    if (plan.holder() != null && plan.price() >= 1) {
      gives.add(new Give(plan.holder(), Give.Kind.EARN, plan.price()));
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
