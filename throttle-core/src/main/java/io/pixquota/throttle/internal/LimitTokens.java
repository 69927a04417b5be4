package io.pixquota.throttle.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The limits in force and their tokens refilled to the step's time, as {@code token_bucket.lua} reads them: a limit
 * that cannot be read is named "t"; a limit new to the state starts as long until full as the busiest one kept. A
 * part of {@link BucketStep}.
 */
final class LimitTokens {
  final List<String> fields;
  final double[] capacity;
  final double[] refill;
  final double[] tokens;

  LimitTokens(Map<String, double[]> limits, StoredState r, double fLast, double fNow, long at) {
    fields = new ArrayList<>(limits.keySet());
    int m = fields.size();
    capacity = new double[m];
    refill = new double[m];
    tokens = new double[m];
    boolean[] known = new boolean[m];
    double busiest = 0;
    for (int i = 0; i < m; i++) {
      capacity[i] = limits.get(fields.get(i))[0];
      refill[i] = limits.get(fields.get(i))[1];
      Double stored = StoredState.finite(r.hash.get(fields.get(i)));
      if (stored != null && stored < -(capacity[i] * (capacity[i] + refill[i] * BucketStep.AHEAD_SECONDS)
          + refill[i] * BucketStep.OWED_SECONDS)) {
        stored = null; // deeper in debt than any fleet can owe (the script's header): garbage
      }
      if (r.hash.containsKey(fields.get(i)) && stored == null) {
        r.repair("t");
      }
      if (r.last == null) {
        tokens[i] = capacity[i];
        known[i] = true;
      } else if (stored != null) {
        tokens[i] = RateFactor.refilled(capacity[i], refill[i], stored, fLast, r.last, at);
        known[i] = true;
        double toFull = (capacity[i] - tokens[i]) / (refill[i] * fNow);
        if (toFull > busiest) {
          busiest = toFull;
        }
      }
    }
    for (int i = 0; i < m; i++) {
      if (!known[i]) {
        tokens[i] = capacity[i] - refill[i] * fNow * busiest;
      }
    }
  }
}
