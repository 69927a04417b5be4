package io.pixquota.throttle;

import io.pixquota.throttle.BucketGroup.Acquired;
import io.pixquota.throttle.BucketGroup.Credit;
import io.pixquota.throttle.BucketGroup.Give;
import io.pixquota.throttle.BucketGroup.Take;
import io.pixquota.throttle.internal.GroupStep;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * For a {@link BucketGroup}'s stores: its takes, gives and credits in the form the group's step takes them (the Java
 * step and the Redis script alike), and the step's reply as the group's answer.
 */
public final class BucketGroups {
  private BucketGroups() {}

  /** The takes' parts, then a part of cost 0 for every bucket given to that no take names. */
  public static List<GroupStep.Part> parts(List<Take> takes, List<Give> gives) {
    List<GroupStep.Part> parts = new ArrayList<>();
    for (Take t : takes) {
      parts.add(new GroupStep.Part(t.bucket().name(), t.bucket().limit().capacity(),
          t.bucket().limit().refillPerSecond(), t.cost(), t.need(), t.waits()));
    }
    for (Give g : gives) {
      if (parts.stream().noneMatch(p -> p.name().equals(g.bucket().name()))) {
        parts.add(new GroupStep.Part(g.bucket().name(), g.bucket().limit().capacity(),
            g.bucket().limit().refillPerSecond(), 0, 0, true));
      }
    }
    return parts;
  }

  public static List<GroupStep.Gift> gifts(List<Give> gives) {
    List<GroupStep.Gift> gifts = new ArrayList<>();
    for (Give g : gives) {
      gifts.add(new GroupStep.Gift(g.bucket().name(), g.kind() == Give.Kind.LOWER_TO, g.amount()));
    }
    return gifts;
  }

  /** A credit as the step remembers it. */
  public static GroupStep.Memo memo(Credit c) {
    return new GroupStep.Memo(c.id(), refunds(c), c.ttl().toMillis());
  }

  public static List<GroupStep.Memo> memos(List<Credit> credits) {
    List<GroupStep.Memo> memos = new ArrayList<>();
    credits.forEach(c -> memos.add(memo(c)));
    return memos;
  }

  public static List<GroupStep.Part> refunds(Credit c) {
    List<GroupStep.Part> refunds = new ArrayList<>();
    for (Give g : c.gives()) {
      refunds.add(new GroupStep.Part(g.bucket().name(), g.bucket().limit().capacity(),
          g.bucket().limit().refillPerSecond(), g.amount(), g.amount(), true));
    }
    return refunds;
  }

  /** The step's reply as the group's answer, for the takes (the parts beyond them were gives only). */
  public static Acquired acquired(GroupStep.Reply r, List<Take> takes, long answeredAtNanos) {
    return new Acquired(r.granted(), Duration.of(r.waitMicros(), ChronoUnit.MICROS),
        r.refusedBy() == 0 ? null : takes.get(r.refusedBy() - 1).bucket(),
        Duration.of(r.retryMicros(), ChronoUnit.MICROS), r.remaining().subList(0, takes.size()), answeredAtNanos);
  }
}
