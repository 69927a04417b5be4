package io.pixquota.throttle.store;

import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Credit;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.Standing;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.internal.GroupStep;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * For a {@link BucketGroup}'s stores: its takes, gives, credits and standing in the form the group's step takes them
 * (the Java step and the Redis script alike), and the step's reply as the group's answer.
 */
public final class BucketGroups {
  private BucketGroups() {}

  /**
   * The takes' parts, then a part of cost 0 for every bucket given to, or holding the standing, that no take names.
   */
  public static List<GroupStep.Part> parts(List<Take> takes, List<Give> gives, Standing standing) {
    List<GroupStep.Part> parts = new ArrayList<>();
    for (Take t : takes) {
      parts.add(new GroupStep.Part(t.bucket().name(), t.bucket().limit().capacity(),
          t.bucket().limit().refillPerSecond(), t.cost(), t.need(), t.waits(), t.reserve()));
    }
    for (Give g : gives) {
      touch(parts, g.bucket());
    }
    if (standing != null) {
      touch(parts, standing.holder());
    }
    return parts;
  }

  /** {@link #parts(List, List, Standing)} without a standing. */
  public static List<GroupStep.Part> parts(List<Take> takes, List<Give> gives) {
    return parts(takes, gives, null);
  }

  private static void touch(List<GroupStep.Part> parts, BucketGroup.GroupBucket b) {
    if (parts.stream().noneMatch(p -> p.name().equals(b.name()))) {
      parts.add(new GroupStep.Part(b.name(), b.limit().capacity(), b.limit().refillPerSecond(), 0, 0, true));
    }
  }

  /** The standing as the step takes it, over {@code parts} (from {@link #parts}); null for none. */
  public static GroupStep.StandingRule standing(List<GroupStep.Part> parts, Standing standing) {
    if (standing == null) {
      return null;
    }
    for (int i = 0; i < parts.size(); i++) {
      if (parts.get(i).name().equals(standing.holder().name())) {
        return new GroupStep.StandingRule(i + 1, (long) standing.price());
      }
    }
    throw new IllegalArgumentException("the standing's holder '" + standing.holder().name() + "' is not a part");
  }

  public static List<GroupStep.Gift> gifts(List<Give> gives) {
    List<GroupStep.Gift> gifts = new ArrayList<>();
    for (Give g : gives) {
      gifts.add(new GroupStep.Gift(g.bucket().name(), kind(g.kind()), g.amount()));
    }
    return gifts;
  }

  private static GroupStep.GiftKind kind(Give.Kind kind) {
    return switch (kind) {
      case REFUND -> GroupStep.GiftKind.REFUND;
      case LOWER_TO -> GroupStep.GiftKind.LOWER;
      case EARN -> GroupStep.GiftKind.EARN;
    };
  }

  /** A credit as the step remembers it. */
  public static GroupStep.Memo memo(Credit c) {
    List<GroupStep.Refund> refunds = new ArrayList<>();
    for (Give g : c.gives()) {
      refunds.add(new GroupStep.Refund(g.bucket().name(), g.bucket().limit().capacity(),
          g.bucket().limit().refillPerSecond(), g.amount(), g.kind() == Give.Kind.EARN));
    }
    return new GroupStep.Memo(c.id(), refunds, c.ttl().toMillis());
  }

  public static List<GroupStep.Memo> memos(List<Credit> credits) {
    List<GroupStep.Memo> memos = new ArrayList<>();
    credits.forEach(c -> memos.add(memo(c)));
    return memos;
  }

  /** The step's reply as the group's answer, for the takes (the parts beyond them were gives only). */
  public static Acquired acquired(GroupStep.Reply r, List<Take> takes, long answeredAtNanos) {
    return new Acquired(r.granted(), Duration.of(r.waitMicros(), ChronoUnit.MICROS),
        r.refusedBy() == 0 ? null : takes.get(r.refusedBy() - 1).bucket(),
        Duration.of(r.retryMicros(), ChronoUnit.MICROS), r.remaining().subList(0, takes.size()), answeredAtNanos,
        r.byReserve(), r.waived(), r.standing() < 0 ? Double.NaN : r.standing());
  }

  /** For a group that keeps no reserves: refuses takes with one, a standing, and gives that earn. */
  static void checkNoReserves(BucketGroup group, List<Take> takes, List<Give> gives, Standing standing) {
    if (standing != null || takes.stream().anyMatch(t -> t.reserve() > 0)
        || gives.stream().anyMatch(g -> g.kind() == Give.Kind.EARN)) {
      throw new UnsupportedOperationException(group + " keeps neither reserves nor standing");
    }
  }
}
