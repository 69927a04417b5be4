package io.pixquota.bench;

import java.util.Arrays;

/** Percentiles of a set of samples (nearest rank). */
record Percentiles(long[] sorted) {
  static Percentiles of(long[] samples) {
    long[] copy = samples.clone();
    Arrays.sort(copy);
    return new Percentiles(copy);
  }

  long at(double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
