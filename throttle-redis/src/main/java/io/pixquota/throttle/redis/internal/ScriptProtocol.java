package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.internal.BucketReply;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.GenerationChange;
import io.pixquota.throttle.internal.StepSettings;
import java.util.List;

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
    return arguments(op, cost, argMicros, clientMicros, booked, settings, null);
  }

  /**
   * The same for a call of {@code flow}: sent only when the settings have shares ("*" when null), so that a bucket
   * without them keeps its common path.
   */
  public static Object[] arguments(BucketStep.Op op, double cost, long argMicros, Long clientMicros, Long booked,
      StepSettings settings, String flow) {
    StringBuilder call = new StringBuilder(48).append(name(op)).append(' ');
    if (cost == 1) {
      call.append('1');
    } else {
      call.append(cost);
    }
    call.append(' ').append(argMicros).append(' ');
    if (clientMicros != null) {
      call.append(clientMicros.longValue());
    }
    call.append(' ');
    if (booked != null) {
      call.append(booked.longValue());
    }
    if (settings.shares() != null) {
      call.append(' ').append(flow == null ? "*" : flow);
    }
    return new Object[] {call.toString(), settings.text()};
  }

  private static String name(BucketStep.Op op) {
    return switch (op) {
      case ACQUIRE -> "acquire";
      case CHARGE -> "charge";
      case REFUND -> "refund";
      case CUT -> "cut";
      case CLOSE -> "close";
    };
  }

  /**
   * Reads the script's reply: "done wait tokens now epoch", then, unless the rate was never cut, never held, no other
   * configuration is live and nothing was repaired, " generation factor hold configurations repaired change others",
   * and, when shares decided, " flow" (the flow whose tokens it took).
   *
   * @throws IllegalArgumentException when {@code text} is not such a reply
   */
  public static BucketReply reply(String text) {
    try {
      if (text != null) {
        Fields v = new Fields(text);
        int outcome = outcome(v.next());
        long wait = Long.parseLong(v.next());
        double remaining = Double.parseDouble(v.next());
        long now = Long.parseLong(v.next());
        long epoch = Long.parseLong(v.next());
        if (v.atEnd()) {
          return new BucketReply(outcome, wait, remaining, now, epoch, epoch, 1, 0, 1, List.of(), null, "", null);
        }
        long generation = Long.parseLong(v.next());
        double factor = Double.parseDouble(v.next());
        long hold = Long.parseLong(v.next());
        int configurations = Integer.parseInt(v.next());
        String repaired = v.next();
        String change = v.next();
        String others = v.next();
        String flow = v.atEnd() ? null : v.rest();
        GenerationChange read = "-".equals(change) ? null : GenerationChange.parse(change);
        if (read == null && !"-".equals(change)) {
          throw new NumberFormatException("change " + change);
        }
        return new BucketReply(outcome, wait, remaining, now, epoch, generation, factor, hold, configurations,
            "-".equals(repaired) ? List.of() : List.of(repaired.split(",")), read, others, flow);
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a reply of the bucket's script: '" + shown(text) + "'", e);
    }
    throw new IllegalArgumentException("not a reply of the bucket's script: '" + shown(text) + "'");
  }

  /** A reply's values, one after another, separated by single spaces (read without splitting the whole reply). */
  private static final class Fields {
    private final String text;
    private int at;

    Fields(String text) {
      this.text = text;
    }

    boolean atEnd() {
      return at > text.length();
    }

    /** The next value; a NumberFormatException when there is none (a reply cut short). */
    String next() {
      if (at > text.length()) {
        throw new NumberFormatException("a value missing");
      }
      int space = text.indexOf(' ', at);
      if (space < 0) {
        space = text.length();
      }
      String value = text.substring(at, space);
      at = space + 1;
      return value;
    }

    /** The last value, which has no space in it (it may be empty); a NumberFormatException when it has. */
    String rest() {
      String value = next();
      if (!atEnd()) {
        throw new NumberFormatException("values left over");
      }
      return value;
    }
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
