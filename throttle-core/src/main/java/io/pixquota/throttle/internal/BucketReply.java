package io.pixquota.throttle.internal;

import java.util.List;

/**
 * The step's answer: {@code token_bucket.lua}'s reply, value for value (see its header).
 *
 * @param outcome         1 done (granted, cut, charged, refunded); 0 not (refused; a refusal's news was old); 2 a
 *                        refusal this replica reported was not counted (it made the last cut, and others asked since)
 * @param repaired        the fields the step could not trust and reset, in the order met; empty when none
 * @param change          the last change of generation the state holds for its current one, or null
 * @param flow            with shares in force, the flow whose tokens the step took (the caller's own unless it
 *                        borrowed); null when the shares did not decide
 */
public record BucketReply(int outcome, long waitMicros, double remaining, long nowMicros, long epoch, long generation,
    double factor, long holdUntilMicros, int configurations, List<String> repaired, GenerationChange change,
    String others, String flow) {
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
   * The refill per second in force: the slowest limit's of this replica's configuration ({@code mine}) and of every
   * other live one, times the rate factor. What the fleet is held to, whatever this replica configured.
   */
  public double ratePerSecond(String mine) {
    double slowest = Double.POSITIVE_INFINITY;
    for (String configuration : (mine + (others.isEmpty() ? "" : ";" + others)).split(";")) {
      for (String limit : configuration.split(",")) {
        int colon = limit.indexOf(':');
        if (colon > 0) {
          slowest = Math.min(slowest, Double.parseDouble(limit.substring(colon + 1)));
        }
      }
    }
    return slowest * factor;
  }
}
