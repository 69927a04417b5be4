package io.pixquota.bacen.internal;

import java.util.List;

/**
 * The step's answer: {@code token_bucket.lua}'s reply, value for value (see its header).
 *
 * @param outcome         1 done (granted, cut, charged, refunded); 0 not (refused; a refusal's news was old); 2 a
 *                        refusal this replica reported was not counted (it made the last cut, and others asked since)
 * @param repaired        the fields the step could not trust and reset, in the order met; empty when none
 */
public record BucketReply(int outcome, long waitMicros, double remaining, long nowMicros, long epoch, long generation,
    double factor, long holdUntilMicros, int configurations, List<String> repaired, String others) {
  public BucketReply {
    repaired = List.copyOf(repaired);
  }

  /** Granted, cut, charged or refunded. */
  public boolean done() {
    return outcome == 1;
  }

  /** A refusal this replica reported that did not count against the fleet's rate. */
  public boolean notCounted() {
    return outcome == 2;
  }

  /**
   * Reads the script's reply: "done wait tokens now epoch", then, unless the rate was never cut, never held, no other
   * configuration is live and nothing was repaired, " generation factor hold configurations repaired others".
   *
   * @throws IllegalArgumentException when {@code text} is not such a reply
   */
  public static BucketReply parse(String text) {
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
