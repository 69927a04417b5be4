package io.pixquota.throttle.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * {@code token_bucket.lua}'s shares within a bucket, in Java: the part of {@link BucketStep} that keeps one
 * sub-bucket per flow ({@code s:<flow>} = "tokens burst rate asked") and each replica's plan ({@code l:<replica>}), and
 * decides a flow's call as {@link ShareStep} does when the whole live fleet of the bucket runs one plan. The script's
 * header says the rules; this class follows it operation for operation. One step's use; not threadsafe.
 */
final class ShareFields {
  private static final Pattern FLOW = Pattern.compile("[A-Za-z0-9._-]{1,64}|\\*");
  /** Below this relative difference, the sub-buckets' sum and the bucket's tokens agree (rounding). */
  private static final double SLACK = 1e-9;

  private final StoredState r;
  private final String myPlan;
  private final TreeMap<String, double[]> stored = new TreeMap<>();
  private final List<String> storedFields = new ArrayList<>();
  private boolean othersAgree = true;
  private boolean mineWritten;
  /** The plan's flows, sorted, and each one's burst, rate and tokens, while the shares are in force. */
  private List<String> flows;
  private double[] burst;
  private double[] rate;
  private double[] tokens;
  private long[] asked;
  private int asker;
  private int from;
  /** The step changed the sub-buckets (or dropped them): it writes, even a refusal. */
  boolean changed;

  /**
   * Reads the {@code s:} and {@code l:} fields of {@code r}'s hash, refilled to {@code at} at the factor {@code fLast}
   * (a sub-bucket that cannot be read is named "s" and dropped; a plan whose replica is not live is dropped).
   *
   * @param live the other replicas whose r: field is live
   */
  ShareFields(StoredState r, StepSettings settings, Set<String> live, double fLast, long at, boolean closing) {
    this.r = r;
    this.myPlan = closing ? null : settings.shares();
    boolean bad = false;
    String mine = "l:" + settings.replica();
    Map<String, String> plans = new HashMap<>();
    for (Map.Entry<String, String> e : r.hash.entrySet()) {
      String field = e.getKey();
      if (field.startsWith("s:")) {
        double[] sub = sub(field.substring(2), e.getValue(), r.redisNow);
        if (sub == null) {
          bad = true;
          r.dead.add(field);
        } else {
          if (r.last != null) {
            sub[0] = Math.min(sub[1], sub[0] + sub[2] * fLast * (double) (at - r.last) / 1000000);
          }
          stored.put(field.substring(2), sub);
          storedFields.add(field);
        }
      } else if (field.startsWith("l:")) {
        if (field.equals(mine) ? myPlan == null : !live.contains(field.substring(2))) {
          r.dead.add(field);
        } else if (!field.equals(mine)) {
          plans.put(field.substring(2), e.getValue());
        }
      }
    }
    if (bad) {
      r.repair("s");
    }
    for (String replica : live) {
      othersAgree &= myPlan != null && myPlan.equals(plans.get(replica));
    }
    mineWritten = myPlan != null && !myPlan.equals(r.hash.get(mine));
  }

  /**
   * "tokens burst rate asked" (asked: when the flow last asked, on the bucket's clock; 0: not since the shares
   * started), each within its bounds, of a flow with a valid name; else null.
   */
  private static double[] sub(String flow, String value, long redisNow) {
    String[] v = value.split(" ", -1);
    if (!FLOW.matcher(flow).matches() || v.length != 4) {
      return null;
    }
    Double t = StoredState.finite(v[0]);
    Double b = StoredState.finite(v[1]);
    Double g = StoredState.finite(v[2]);
    Double asked = StoredState.whole(v[3]);
    if (t == null || b == null || g == null || asked == null || !(b > 0) || b > 1e12 || !(g >= 0) || g > 1e12
        || t > b || t < -(b * (b + g * BucketStep.AHEAD_SECONDS) + g * BucketStep.OWED_SECONDS)
        || asked > redisNow + StoredState.SLACK_MICROS) {
      return null;
    }
    return new double[] {t, b, g, asked};
  }

  /**
   * Settles the sub-buckets against the limits' tokens, once read: with the shares in force ({@code alone}: one
   * configuration of one limit live, and every live replica of it runs this plan), the stored sub-buckets when they
   * are the plan's and add up to no more than the bucket holds, else new ones sharing the bucket's tokens by burst;
   * the bucket's tokens are then their sum. Otherwise stored sub-buckets are folded into the limits (none may hold
   * more than the sub-buckets' sum, in proportion) and dropped.
   */
  void settle(boolean alone, double[] capacity, double[] limitTokens, double limitRefill, String flow) {
    if (myPlan != null && alone && othersAgree) {
      plan(capacity[0], limitRefill);
      boolean same = stored.keySet().equals(new TreeSet<>(flows));
      double sum = 0;
      for (int i = 0; same && i < flows.size(); i++) {
        double[] sub = stored.get(flows.get(i));
        same = sub[1] == burst[i] && sub[2] == rate[i];
        tokens[i] = sub[0];
        asked[i] = (long) sub[3];
        sum += sub[0];
      }
      if (!same || sum > limitTokens[0] + SLACK * capacity[0]) {
        for (int i = 0; i < flows.size(); i++) {
          tokens[i] = limitTokens[0] * burst[i] / capacity[0];
          asked[i] = 0;
        }
        changed = true;
        storedFields.forEach(r.dead::add);
      }
      int named = flows.indexOf(flow);
      asker = named >= 0 ? named : flows.indexOf("*");
      from = asker;
      limitTokens[0] = sum();
    } else if (!stored.isEmpty()) {
      double sum = 0;
      double bursts = 0;
      for (double[] sub : stored.values()) {
        sum += sub[0];
        bursts += sub[1];
      }
      for (int i = 0; i < capacity.length; i++) {
        limitTokens[i] = Math.min(limitTokens[i], capacity[i] * sum / bursts);
      }
      storedFields.forEach(r.dead::add);
      changed = true;
    }
  }

  private void plan(double capacity, double refill) {
    flows = new ArrayList<>();
    List<Double> weights = new ArrayList<>();
    double total = 0;
    for (String pair : myPlan.split(",")) {
      int eq = pair.indexOf('=');
      flows.add(pair.substring(0, eq));
      double w = Double.parseDouble(pair.substring(eq + 1));
      weights.add(w);
      total += w;
    }
    int n = flows.size();
    burst = new double[n];
    rate = new double[n];
    tokens = new double[n];
    asked = new long[n];
    for (int i = 0; i < n; i++) {
      burst[i] = 1 + (capacity - n) * weights.get(i) / total;
      rate[i] = refill * weights.get(i) / total;
    }
  }

  /** Whether the shares decide this step. */
  boolean inForce() {
    return flows != null;
  }

  /** The flow whose tokens the step took (the asker's own when it took none): for the reply. */
  String from() {
    return flows.get(from);
  }

  /**
   * An acquire's wait (microseconds, not yet rounded): its own flow's token now; else a token another flow holds
   * beyond what it keeps for its own callers, now (the fullest by burst, the first of equals): one call's cost (or
   * its burst beyond the call lent, when less) while the flow asked within the last three slots of its rate, else
   * nothing; else its slot on its own refill. Never before the hold. The asker is then a flow that asked now.
   */
  double wait(double cost, double fNow, long hold, long at) {
    double w = 0;
    if (tokens[asker] < cost) {
      double fullest = -1;
      for (int i = 0; i < flows.size(); i++) {
        double share = tokens[i] / burst[i];
        double keeps = rate[i] > 0 && asked[i] > 0 && at - asked[i] <= 3000000 / rate[i]
            ? Math.min(cost, burst[i] - cost) : 0;
        if (i != asker && tokens[i] - cost >= keeps && share > fullest) {
          from = i;
          fullest = share;
        }
      }
      if (from == asker) {
        w = (cost - tokens[asker]) / (rate[asker] * fNow) * 1000000;
      }
    }
    return hold - at > w ? hold - at : w;
  }

  /** What a done operation takes or gives back; the limit's tokens are then the sub-buckets' sum. */
  void apply(BucketStep.Op op, double cost, double fNow, double wait, long at, double[] limitTokens) {
    if (op == BucketStep.Op.ACQUIRE) {
      tokens[from] = Math.min(tokens[from], burst[from] - rate[from] * fNow * wait / 1000000) - cost;
      asked[asker] = at;
    } else if (op == BucketStep.Op.REFUND) {
      tokens[asker] = Math.min(burst[asker], tokens[asker] + cost);
    } else if (op == BucketStep.Op.CHARGE) {
      tokens[asker] = tokens[asker] - cost;
    }
    limitTokens[0] = sum();
  }

  /** A cut: every sub-bucket empty until the added hold ends, what it booked ahead kept, as the limit. */
  void cut(double fNow, long addedHoldMicros, double[] limitTokens) {
    for (int i = 0; i < flows.size(); i++) {
      tokens[i] = Math.min(tokens[i], 0) - (rate[i] * fNow) * addedHoldMicros / 1000000;
    }
    limitTokens[0] = sum();
  }

  private double sum() {
    double sum = 0;
    for (double t : tokens) {
      sum += t;
    }
    return sum;
  }

  /** Writes the sub-buckets and this replica's plan; returns the longest time to full of the sub-buckets (ms). */
  double write(Map<String, String> written, String replica, boolean renewed, double fNow) {
    if (myPlan != null && (mineWritten || renewed)) {
      written.put("l:" + replica, myPlan);
    }
    double ttl = 0;
    for (int i = 0; flows != null && i < flows.size(); i++) {
      written.put("s:" + flows.get(i), tokens[i] + " " + burst[i] + " " + rate[i] + " " + asked[i]);
      if (rate[i] > 0) { // a flow of weight 0 borrows only: its sub-bucket never fills
        ttl = Math.max(ttl, (burst[i] - tokens[i]) / (rate[i] * fNow) * 1000);
      }
    }
    return ttl;
  }
}
