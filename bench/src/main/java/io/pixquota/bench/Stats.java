package io.pixquota.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** Medians and spreads over runs, formatted for markdown tables. */
final class Stats {
  private Stats() {}

  /** "median (min-max)" of column {@code i}; "n/a" when it has no value. */
  static String median(List<double[]> rows, int i, String format) {
    double[] v = rows.stream().mapToDouble(r -> r[i]).filter(x -> !Double.isNaN(x)).sorted().toArray();
    if (v.length == 0) {
      return "n/a";
    }
    String median = String.format(Locale.ROOT, format, median(v));
    if (v.length == 1) {
      return median;
    }
    return median + " (" + String.format(Locale.ROOT, format, v[0]) + "-"
        + String.format(Locale.ROOT, format, v[v.length - 1]) + ")";
  }

  static double median(double[] sorted) {
    double[] v = sorted.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  /** Every run's value of column {@code i}, as whole numbers: "0 / 0 / 1". */
  static String each(List<double[]> rows, int i) {
    return rows.stream().map(r -> Long.toString(Math.round(r[i]))).collect(Collectors.joining(" / "));
  }

  static long sum(List<double[]> rows, int i) {
    return Math.round(rows.stream().mapToDouble(r -> r[i]).sum());
  }
}
