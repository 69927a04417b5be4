package io.pixquota.bacen.dict;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;

/**
 * Who spends the participant's last tokens. The participant's buckets are every customer's: a scanner that takes a
 * new end-user id for every lookup never empties a user bucket, and would empty them for all. So each
 * participant-scope bucket keeps a reserve that only lookups of payers with <b>standing</b> may use: standing is
 * earned by lookups that found their key (+1 each) and by settled payments (+{@code price}), lost by lookups of keys
 * that do not exist (-{@code price}), and kept with the payer's own bucket for {@code standingTtl} after its last
 * lookup. A lookup that uses the reserve spends {@code price} of its payer's standing at its booking, given back with
 * one more if its key is found; so a scanner that buys standing with found keys pays for each lookup it makes in the
 * reserve at least what an unknown payer would spend above it. Lookups the caller marks
 * {@link DictLookup.Trust#TRUSTED} are not held to the reserve; {@link DictLookup.Trust#RISKY} ones are held to the
 * larger {@code riskyShare} whatever their standing, and earn none. docs/operations.md, "DICT", has the figures.
 *
 * @param share       the part of each participant-scope bucket kept from payers without standing, within 0..1
 * @param riskyShare  the part kept from lookups marked RISKY, within share..1
 * @param price       the standing a lookup in the reserve spends, a whole number >= 1; 0 while not yet derived from
 *                    the policies (the most a not-found lookup costs a participant bucket, in found lookups)
 * @param standingTtl how long a payer's standing is kept after its last lookup, at most 366 days
 */
public record DictReserve(double share, double riskyShare, int price, Duration standingTtl) {
  /** Default {@link #share}: half of each participant bucket. */
  public static final double DEFAULT_SHARE = 0.5;
  /** Default {@link #riskyShare}. */
  public static final double DEFAULT_RISKY_SHARE = 0.75;
  /** Default {@link #standingTtl}: 30 days. */
  public static final Duration DEFAULT_STANDING_TTL = Duration.ofDays(30);

  /** @throws IllegalArgumentException naming the field and the value */
  public DictReserve {
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException("reserve share must be within 0..1, but was " + share);
    }
    if (!(riskyShare >= share && riskyShare <= 1)) {
      throw new IllegalArgumentException("reserve riskyShare must be within share " + share + "..1, but was "
          + riskyShare);
    }
    if (price < 0 || price > 1000) {
      throw new IllegalArgumentException("reserve price must be within 1..1000 (0: derived), but was " + price);
    }
    Checks.standingTtl("standingTtl", standingTtl);
  }

  /** The defaults, the price derived from the policies. */
  public static DictReserve defaults() {
    return new DictReserve(DEFAULT_SHARE, DEFAULT_RISKY_SHARE, 0, DEFAULT_STANDING_TTL);
  }

  /** No reserve: every payer may use every token (standing is still kept). */
  public static DictReserve none() {
    return new DictReserve(0, 0, 0, DEFAULT_STANDING_TTL);
  }

  /** This reserve with the price derived from {@code table} when it was not given. */
  public DictReserve pricedFor(DictPolicies table) {
    if (price > 0) {
      return this;
    }
    double most = 1;
    for (DictPolicy p : table.policies()) {
      if (p.scope() == DictPolicy.Scope.PSP && p.cost200() > 0) {
        most = Math.max(most, Math.ceil(p.cost404() / p.cost200()));
      }
    }
    return new DictReserve(share, riskyShare, (int) Math.min(1000, most), standingTtl);
  }

  /** The tokens a lookup of this trust must leave in a participant bucket of {@code capacity}. */
  double tokens(DictLookup.Trust trust, double capacity) {
    return switch (trust) {
      case TRUSTED -> 0;
      case NORMAL -> share * capacity;
      case RISKY -> riskyShare * capacity;
    };
  }
}
