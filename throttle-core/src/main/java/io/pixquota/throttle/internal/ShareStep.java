package io.pixquota.throttle.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Guaranteed shares within one bucket (issue 46; {@code docs/architecture.md}, "Shares"), the step a store runs
 * atomically: the bucket of capacity B and refill r is split into one sub-bucket per flow (the services that share
 * the quota), as Linux HTB gives each class a guaranteed rate and lets it borrow what the others leave.
 *
 * <p>A flow of weight w (of the weights' sum W) is guaranteed g = r w / W: its sub-bucket refills at g up to its burst
 * b = c + (B - n c) w / W (each of the n flows one call's cost c, the rest by weight: the bursts add up to B). A call
 * of flow f, in this order:
 * <ol>
 *   <li>its own sub-bucket holds c: granted now;</li>
 *   <li>else another flow's sub-bucket holds c beyond what it keeps for its owner (one call's cost when its burst
 *       holds two, else what it holds beyond one), so that a flow asking no faster than its rate finds its own call
 *       there: the call borrows c of it, now; of several, the fullest (tokens over burst), then the first declared.
 *       Only now: a token a flow's own callers could claim later is never lent ahead, so a flow in a storm cannot
 *       book another's guarantee;</li>
 *   <li>else it books ahead on its own sub-bucket (tokens may go below zero, as a bucket's do): its slot is when
 *       its own refill covers it, and beyond the max wait it is refused, nothing recorded.</li>
 * </ol>
 * Every call takes c from one sub-bucket, at or after the time that sub-bucket held it, and each sub-bucket is a
 * token bucket (b, g): in any interval T the calls admitted are at most the sum of b + g T, that is B + r T, the
 * bucket's own bound. A flow whose calls come no faster than g, evenly, always finds its own call (step 1), since
 * borrowing leaves it one; a flow with no weight borrows only. A refund goes back to the flow's own sub-bucket,
 * within its burst.
 */
public final class ShareStep {
  /** Each flow's burst and guaranteed rate, from the bucket's capacity and rate and the flows' weights. */
  public record Plan(Map<String, Double> burst, Map<String, Double> rate, double cost) {
    public Plan {
      burst = Collections.unmodifiableMap(new LinkedHashMap<>(burst)); // in the order declared: ties go first
      rate = Collections.unmodifiableMap(new LinkedHashMap<>(rate));
    }

    /**
     * @param weights each flow's weight (>= 0; at least one above 0), by name
     * @throws IllegalArgumentException when the capacity cannot give each flow one call's cost, naming both
     */
    public static Plan of(double capacity, double ratePerSecond, double cost, Map<String, Double> weights) {
      double total = weights.values().stream().mapToDouble(Double::doubleValue).sum();
      if (weights.isEmpty() || !(total > 0) || weights.values().stream().anyMatch(w -> !(w >= 0))) {
        throw new IllegalArgumentException("shares must be weights of 0 or more, at least one above 0, but were "
            + weights);
      }
      double spare = capacity - weights.size() * cost;
      if (spare < 0) {
        throw new IllegalArgumentException("capacity " + capacity + " cannot give each of " + weights.size()
            + " flows one call of cost " + cost + ": raise the capacity or share it among fewer flows");
      }
      Map<String, Double> burst = new LinkedHashMap<>();
      Map<String, Double> rate = new LinkedHashMap<>();
      weights.forEach((flow, w) -> {
        burst.put(flow, cost + spare * w / total);
        rate.put(flow, ratePerSecond * w / total);
      });
      return new Plan(burst, rate, cost);
    }

    /**
     * What a sub-bucket keeps for its owner when it lends: one call's cost, or what its burst holds beyond the call it
     * lends when that is less.
     */
    double keeps(String flow) {
      return Math.min(cost, burst.get(flow) - cost);
    }
  }

  /** The sub-buckets' tokens, as counted at {@code updatedMicros}; a flow absent is full. Not threadsafe. */
  public static final class State {
    final Map<String, Double> tokens = new LinkedHashMap<>();
    long updatedMicros = Long.MIN_VALUE;

    /** A flow's tokens as last counted (its burst when never counted). */
    public double tokens(Plan plan, String flow) {
      return tokens.getOrDefault(flow, plan.burst().get(flow));
    }
  }

  /**
   * What a step decided: granted (else refused, nothing recorded), the wait until the slot, and whose tokens it took:
   * the flow's own, or the lender's.
   */
  public record Decision(boolean granted, long waitMicros, String from) {}

  private ShareStep() {}

  /** Refills every sub-bucket to {@code nowMicros} (never backwards). */
  static long refill(State s, Plan plan, long nowMicros) {
    long now = Math.max(nowMicros, s.updatedMicros);
    if (s.updatedMicros != Long.MIN_VALUE) {
      for (Map.Entry<String, Double> e : s.tokens.entrySet()) {
        double b = plan.burst().get(e.getKey());
        e.setValue(Math.min(b, e.getValue() + plan.rate().get(e.getKey()) * (now - s.updatedMicros) / 1e6));
      }
    }
    s.updatedMicros = now;
    return now;
  }

  /**
   * A call of {@code flow} (one of the plan's) at {@code nowMicros} that waits at most {@code maxWaitMicros}.
   *
   * @throws IllegalArgumentException for a flow the plan does not have
   */
  public static Decision acquire(State s, Plan plan, String flow, long nowMicros, long maxWaitMicros) {
    if (!plan.burst().containsKey(Objects.requireNonNull(flow, "flow cannot be null"))) {
      throw new IllegalArgumentException("flow must be one of " + plan.burst().keySet() + ", but was '" + flow + "'");
    }
    refill(s, plan, nowMicros);
    double c = plan.cost();
    double own = s.tokens(plan, flow);
    if (own >= c) {
      s.tokens.put(flow, own - c);
      return new Decision(true, 0, flow);
    }
    String lender = null;
    double fullest = -1;
    for (String other : plan.burst().keySet()) {
      double t = s.tokens(plan, other);
      double share = t / plan.burst().get(other);
      if (!other.equals(flow) && t - c >= plan.keeps(other) && share > fullest) {
        lender = other;
        fullest = share;
      }
    }
    if (lender != null) {
      s.tokens.put(lender, s.tokens(plan, lender) - c);
      return new Decision(true, 0, lender);
    }
    double g = plan.rate().get(flow);
    if (g <= 0) {
      return new Decision(false, Long.MAX_VALUE, flow);
    }
    long wait = (long) Math.ceil((c - own) / g * 1e6);
    if (wait > maxWaitMicros) {
      return new Decision(false, wait, flow);
    }
    s.tokens.put(flow, own - c);
    return new Decision(true, wait, flow);
  }

  /** Gives {@code cost} back to the flow's own sub-bucket, within its burst. */
  public static void refund(State s, Plan plan, String flow, double cost, long nowMicros) {
    refill(s, plan, nowMicros);
    s.tokens.put(flow, Math.min(plan.burst().get(flow), s.tokens(plan, flow) + cost));
  }
}
