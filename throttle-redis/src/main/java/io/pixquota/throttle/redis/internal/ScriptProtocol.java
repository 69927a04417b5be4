package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.internal.BucketReply;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.StepSettings;
import java.util.List;
import java.util.Locale;

/**
 * {@code token_bucket.lua}'s protocol, in one place: what the script is sent (its ARGV) and how its reply reads. The
 * Redis bucket sends exactly these arguments and reads replies with {@link #reply}; the differential test sends the
 * same arguments to the script as it gives {@link BucketStep}, and reads the script's reply the same way.
 */
public final class ScriptProtocol {
  private ScriptProtocol() {}

  /**
   * The script's ARGV for one operation.
   *
   * @param clientMicros the caller's clock in client-clock mode, else null (Redis's clock)
   * @param booked       a cut's booking generation, else null
   */
  public static Object[] arguments(BucketStep.Op op, double cost, long argMicros, Long clientMicros, Long booked,
      StepSettings settings) {
    return new Object[] {op.name().toLowerCase(Locale.ROOT), cost == 1 ? "1" : Double.toString(cost),
        Long.toString(argMicros), clientMicros == null ? "" : Long.toString(clientMicros),
        booked == null ? "" : Long.toString(booked), settings.text()};
  }

  /**
   * Reads the script's reply: "done wait tokens now epoch", then, unless the rate was never cut, never held, no other
   * configuration is live and nothing was repaired, " generation factor hold configurations repaired others".
   *
   * @throws IllegalArgumentException when {@code text} is not such a reply
   */
  public static BucketReply reply(String text) {
    String[] v = text == null ? new String[0] : text.split(" ", -1);
    try {
      if (v.length == 5) {
        long epoch = Long.parseLong(v[4]);
        return new BucketReply(outcome(v[0]), Long.parseLong(v[1]), Double.parseDouble(v[2]), Long.parseLong(v[3]),
            epoch, epoch, 1, 0, 1, List.of(), "");
      } else if (v.length == 11) {
        return new BucketReply(outcome(v[0]), Long.parseLong(v[1]), Double.parseDouble(v[2]), Long.parseLong(v[3]),
            Long.parseLong(v[4]), Long.parseLong(v[5]), Double.parseDouble(v[6]), Long.parseLong(v[7]),
            Integer.parseInt(v[8]), "-".equals(v[9]) ? List.of() : List.of(v[9].split(",")), v[10]);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a reply of the bucket's script: '" + shown(text) + "'", e);
    }
    throw new IllegalArgumentException("not a reply of the bucket's script: '" + shown(text) + "'");
  }

  private static int outcome(String s) {
    return switch (s) {
      case "0" -> 0;
      case "1" -> 1;
      case "2" -> 2;
      default -> throw new NumberFormatException("outcome " + s);
    };
  }

  private static String shown(String text) {
    return text == null || text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
