package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.internal.GroupStep;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bucket_group.lua}'s protocol, in one place: what the script is sent (its ARGV) and how its reply reads, for
 * the Redis group and for the differential test alike.
 */
public final class GroupProtocol {
  private GroupProtocol() {}

  /**
   * The script's ARGV for an acquire (gives and memos included).
   *
   * @param standing       null: no one may use a reserve
   * @param standingMillis how long a bucket that holds standing is kept after it was written
   * @param clientMicros   the caller's clock in client-clock mode, else null (Redis's clock)
   */
  public static Object[] acquire(List<GroupStep.Part> parts, long maxWaitMicros, List<GroupStep.Gift> gifts,
      List<GroupStep.Memo> memos, GroupStep.StandingRule standing, long standingMillis, Long clientMicros) {
    StringBuilder p = new StringBuilder();
    for (GroupStep.Part part : parts) {
      p.append(p.length() == 0 ? "" : ";").append(part.name()).append(' ').append(number(part.capacity()))
          .append(' ').append(number(part.refill())).append(' ').append(number(part.cost())).append(' ')
          .append(number(part.need())).append(' ').append(number(part.reserve())).append(' ')
          .append(part.waits() ? 'w' : 'n');
    }
    StringBuilder g = new StringBuilder();
    for (GroupStep.Gift gift : gifts) {
      char kind = switch (gift.kind()) {
        case REFUND -> 'r';
        case LOWER -> 'l';
        case EARN -> 'e';
      };
      g.append(g.length() == 0 ? "" : ";").append(gift.name()).append(' ').append(kind).append(' ')
          .append(number(gift.amount()));
    }
    StringBuilder m = new StringBuilder();
    for (GroupStep.Memo memo : memos) {
      m.append(m.length() == 0 ? "" : "|").append(memo.ttlMillis()).append(';');
      for (int i = 0; i < memo.refunds().size(); i++) {
        GroupStep.Refund r = memo.refunds().get(i);
        m.append(i == 0 ? "" : ";").append(r.name()).append(' ').append(number(r.capacity())).append(' ')
            .append(number(r.refill())).append(' ').append(number(r.amount())).append(r.earns() ? " e" : "");
      }
    }
    return new Object[] {"acquire", Long.toString(maxWaitMicros), clientMicros == null ? "" : clientMicros.toString(),
        p.toString(), g.toString(), m.toString(), Long.toString(standingMillis),
        standing == null ? "" : standing.holder() + " " + standing.price()};
  }

  /** The script's ARGV for a redeem giving at most {@code maxRefund} a refund; its KEYS[1] is the credit's key. */
  public static Object[] redeem(String base, double maxRefund, long standingMillis, Long clientMicros) {
    return new Object[] {"redeem", "0", clientMicros == null ? "" : clientMicros.toString(), base, number(maxRefund),
        "", Long.toString(standingMillis), ""};
  }

  /**
   * Reads the script's reply: "granted wait refusedBy retry now repaired r1,r2,... byReserve waived standing".
   *
   * @throws IllegalArgumentException when {@code text} is not such a reply
   */
  public static GroupStep.Reply reply(String text) {
    String[] v = text == null ? new String[0] : text.split(" ", -1);
    try {
      if (v.length == 10) {
        List<Double> remaining = new ArrayList<>();
        if (!v[6].isEmpty()) {
          for (String r : v[6].split(",")) {
            remaining.add(Double.parseDouble(r));
          }
        }
        return new GroupStep.Reply("1".equals(v[0]), Long.parseLong(v[1]), Integer.parseInt(v[2]),
            Long.parseLong(v[3]), Long.parseLong(v[4]), remaining, Integer.parseInt(v[5]), "1".equals(v[7]),
            "1".equals(v[8]), Long.parseLong(v[9]));
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a reply of the group's script: '" + shown(text) + "'", e);
    }
    throw new IllegalArgumentException("not a reply of the group's script: '" + shown(text) + "'");
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  private static String shown(String text) {
    return text == null || text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
