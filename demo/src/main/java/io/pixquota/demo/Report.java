package io.pixquota.demo;

import io.pixquota.harness.ForeignConsumer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The demo's HTML report: one self-contained file (inline SVG and style, no script, font or external resource).
 * Per mode, a timeline of calls arriving at the provider per 100 ms, stacked by replica, 429s in red, with the
 * provider's rate as a line; and the distribution of waits for a slot. Every bar carries {@code data-*} attributes
 * (mode, bin, series, count) so that a test can check it against the run.
 */
final class Report {
  static final long BIN_MICROS = 100_000;
  private static final String[] COLORS = {"#2b6cb0", "#38a169", "#805ad5", "#d69e2e", "#319795", "#b83280"};
  private static final String RED = "#e53e3e";
  private static final String GREY = "#a0aec0";
  private static final String PINK = "#f6a5a5";

  private Report() {}

  /**
   * @param foreign         what the foreign system did (or the priorities run), for the heading; null: neither
   * @param prioritySeconds a priorities run's length (r1 batch, r2 a person), else 0
   */
  static String html(Map<String, ModeResult> results, double capacity, double rate, int replicas, int calls,
      String foreign, int prioritySeconds) {
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>pixquota demo</title>")
        .append("<style>body{font-family:sans-serif;margin:24px;color:#1a202c}h2{margin-top:32px}")
        .append("table{border-collapse:collapse}td,th{border:1px solid #cbd5e0;padding:4px 10px;text-align:right}")
        .append("</style></head><body>");
    sb.append("<h1>pixquota demo</h1><p>").append(prioritySeconds > 0 ? "" : replicas + " replicas x " + calls)
        .append(prioritySeconds > 0 ? foreign + ". "
            : foreign == null ? " PIX status queries at the same instant. " : " callers; " + foreign + ". ")
        .append("Provider quota: 10 per second per integrator. ")
        .append(String.format(Locale.ROOT, "Shared bucket: burst %.0f, %.1f per second.", capacity, rate))
        .append("</p>");
    sb.append("<table><tr><th></th>");
    results.keySet().forEach(m -> sb.append("<th>").append(m).append("</th>"));
    sb.append("</tr>");
    row(sb, results, "served", r -> Long.toString(r.served()));
    row(sb, results, "429", r -> Long.toString(r.tooManyRequests()));
    row(sb, results, "elapsed (s)", r -> String.format(Locale.ROOT, "%.2f", r.elapsedMs() / 1000));
    row(sb, results, "wait p50 / p99 (ms)", r -> String.format(Locale.ROOT, "%.0f / %.0f", r.waitPercentileMs(50),
        r.waitPercentileMs(99)));
    row(sb, results, "provider: most accepted in 1 s", r -> Long.toString(r.providerMaxInWindow));
    if (prioritySeconds > 0) {
      row(sb, results, "r2 (a person): wait p50 / p99 / max (ms)", r -> String.format(Locale.ROOT,
          "%.0f / %.0f / %.0f", r.waitPercentileMs("r2", 50), r.waitPercentileMs("r2", 99),
          r.waitPercentileMs("r2", 100)));
      row(sb, results, "r1 (batch): served per s", r -> String.format(Locale.ROOT, "%.2f",
          r.servedPerSecond("r1", prioritySeconds)));
    } else if (foreign != null) {
      row(sb, results, "foreign calls / 429", r -> r.foreignCalls() + " / " + r.foreignTooManyRequests());
      row(sb, results, "effective rate, lowest (/s)", r -> String.format(Locale.ROOT, "%.2f",
          r.effectiveRateLowest()));
    }
    sb.append("</table>");
    for (ModeResult r : results.values()) {
      sb.append("<h2>").append(r.mode).append(": calls arriving at the provider per 100 ms</h2>");
      sb.append(timeline(r));
      if (r.foreign) {
        sb.append("<h2>").append(r.mode).append(": the shared bucket's effective rate, as each replica saw it</h2>");
        sb.append(rates(r, rate));
      }
      sb.append("<h2>").append(r.mode)
          .append(prioritySeconds > 0 ? ": wait for a slot, every call" : ": wait for a slot").append("</h2>");
      sb.append(waits(r));
      if (prioritySeconds > 0) {
        sb.append("<h2>").append(r.mode).append(": r2 (a person): wait for a slot, 25 ms bins</h2>");
        sb.append(waits(r, r.callsByReplica.getOrDefault("r2", List.of()), 25, "person-waits"));
      }
    }
    sb.append("</body></html>\n");
    return sb.toString();
  }

  private static void row(StringBuilder sb, Map<String, ModeResult> results, String label,
      java.util.function.Function<ModeResult, String> cell) {
    sb.append("<tr><th>").append(label).append("</th>");
    results.values().forEach(r -> sb.append("<td>").append(cell.apply(r)).append("</td>"));
    sb.append("</tr>");
  }

  /**
   * Bin index -> series -> count; series are replica ids (and "foreign") for accepted calls, "429" for our refused
   * ones and "foreign-429" for the foreign system's.
   */
  static Map<Integer, Map<String, Integer>> bins(ModeResult r) {
    Map<Integer, Map<String, Integer>> bins = new TreeMap<>();
    long first = r.providerEvents.stream().mapToLong(e -> ((Number) e.get("atMicros")).longValue()).min().orElse(0);
    for (Map<String, Object> e : r.providerEvents) {
      int bin = (int) ((((Number) e.get("atMicros")).longValue() - first) / BIN_MICROS);
      boolean refused = ((Number) e.get("status")).intValue() == 429;
      String series = ModeResult.isForeign(e) ? (refused ? "foreign-429" : ForeignConsumer.ID)
          : refused ? "429" : String.valueOf(e.get("replica"));
      bins.computeIfAbsent(bin, k -> new TreeMap<>()).merge(series, 1, Integer::sum);
    }
    return bins;
  }

  private static String timeline(ModeResult r) {
    Map<Integer, Map<String, Integer>> bins = bins(r);
    int lastBin = bins.isEmpty() ? 0 : ((TreeMap<Integer, Map<String, Integer>>) bins).lastKey();
    int nBins = Math.max(10, lastBin + 1);
    int maxCount = bins.values().stream().mapToInt(m -> m.values().stream().mapToInt(Integer::intValue).sum())
        .max().orElse(1);
    maxCount = Math.max(maxCount, 2);
    int width = 760;
    int height = 260;
    int left = 40;
    int bottom = 30;
    double barW = (double) (width - left - 10) / nBins;
    double unit = (double) (height - bottom - 10) / maxCount;
    List<String> replicas = new ArrayList<>(new TreeSet<>(r.callsByReplica.keySet()));
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "data-mode=\"%s\" role=\"img\">", width, height, r.mode));
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#718096\"/>", left,
        height - bottom, width - 10, height - bottom));
    for (Map.Entry<Integer, Map<String, Integer>> bin : bins.entrySet()) {
      double y = height - bottom;
      List<String> order = new ArrayList<>(replicas);
      order.addAll(List.of(ForeignConsumer.ID, "429", "foreign-429"));
      for (String series : order) {
        int count = bin.getValue().getOrDefault(series, 0);
        if (count == 0) {
          continue;
        }
        double h = count * unit;
        y -= h;
        String color = switch (series) {
          case "429" -> RED;
          case "foreign-429" -> PINK;
          case ForeignConsumer.ID -> GREY;
          default -> COLORS[Math.max(0, replicas.indexOf(series)) % COLORS.length];
        };
        sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            + "fill=\"%s\" data-mode=\"%s\" data-bin=\"%d\" data-series=\"%s\" data-count=\"%d\"><title>%s: %d at "
            + "%d-%d ms</title></rect>", left + bin.getKey() * barW + 1, y, Math.max(1, barW - 2), h, color, r.mode,
            bin.getKey(), series, count, series, count, bin.getKey() * 100, bin.getKey() * 100 + 100));
      }
    }
    double quotaY = height - bottom - unit; // 10 per second = 1 per 100 ms bin
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#1a202c\" "
        + "stroke-dasharray=\"6 4\" data-quota-per-bin=\"1\"/>", left, quotaY, width - 10, quotaY));
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\">provider rate: 10/s = 1 per "
        + "100 ms</text>", left + 4, quotaY - 4));
    int labelEvery = 10 * Math.max(1, (nBins + 119) / 120); // at most 12 labels, on whole seconds
    for (int i = 0; i < nBins; i += labelEvery) {
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%.1f s</text>",
          left + i * barW, height - 10, i / 10.0));
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"14\" font-size=\"11\">max %d</text>", maxCount));
    List<String> labels = new ArrayList<>(replicas);
    List<String> colors = new ArrayList<>();
    for (int i = 0; i < replicas.size(); i++) {
      colors.add(COLORS[i % COLORS.length]);
    }
    labels.add("429");
    colors.add(RED);
    if (r.foreign) {
      labels.addAll(List.of(ForeignConsumer.ID, "foreign 429"));
      colors.addAll(List.of(GREY, PINK));
    }
    int lx = width - 10 - 90 * labels.size();
    for (int i = 0; i < labels.size(); i++) {
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"6\" width=\"10\" height=\"10\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"15\" font-size=\"11\">%s</text>", lx + 90 * i, colors.get(i), lx + 90 * i + 14,
          labels.get(i)));
    }
    sb.append("</svg>");
    return sb.toString();
  }

  /**
   * The effective rate over time, one step line per replica (from its gauge), with the configured rate dashed. Each
   * line carries {@code data-replica} and {@code data-lowest}.
   */
  private static String rates(ModeResult r, double configured) {
    int width = 760;
    int height = 200;
    int left = 40;
    int bottom = 30;
    double lastMs = r.effectiveRate.values().stream().flatMap(List::stream).mapToDouble(row -> row[0]).max()
        .orElse(0);
    double spanMs = Math.max(1000, lastMs);
    double top = configured * 1.1;
    double xs = (width - left - 10) / spanMs;
    double ys = (height - bottom - 10) / top;
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
        + "width=\"%d\" height=\"%d\" data-mode=\"%s\" data-chart=\"rate\" role=\"img\">", width, height, r.mode));
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#718096\"/>", left,
        height - bottom, width - 10, height - bottom));
    double cy = height - bottom - configured * ys;
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#1a202c\" "
        + "stroke-dasharray=\"6 4\"/><text x=\"%d\" y=\"%.1f\" font-size=\"11\">configured: %.1f/s</text>", left,
        cy, width - 10, cy, left + 4, cy - 4, configured));
    List<String> replicas = new ArrayList<>(new TreeSet<>(r.effectiveRate.keySet()));
    for (int i = 0; i < replicas.size(); i++) {
      List<double[]> rows = r.effectiveRate.get(replicas.get(i));
      StringBuilder points = new StringBuilder();
      double prevY = -1;
      for (double[] row : rows) {
        double x = left + row[0] * xs;
        double y = height - bottom - row[1] * ys;
        if (prevY >= 0) {
          points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, prevY));
        }
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        prevY = y;
      }
      double lowest = rows.stream().mapToDouble(row -> row[1]).min().orElse(0);
      sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\" "
          + "data-replica=\"%s\" data-lowest=\"%.3f\"><title>%s: lowest %.2f/s</title></polyline>",
          COLORS[i % COLORS.length], points.toString().trim(), replicas.get(i), lowest, replicas.get(i), lowest));
    }
    for (int s = 0; s * 1000 <= spanMs; s += Math.max(1, (int) (spanMs / 1000 / 10))) {
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%d s</text>",
          left + s * 1000 * xs, height - 10, s));
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\" font-size=\"11\">0/s</text>", height - bottom));
    sb.append("</svg>");
    return sb.toString();
  }

  private static String waits(ModeResult r) {
    return waits(r, r.all(), 250, "waits");
  }

  /** A histogram of {@code calls}' waits in bins of {@code binMs}. */
  private static String waits(ModeResult r, List<CallRecord> calls, int binMs, String chart) {
    Map<Integer, Integer> hist = new TreeMap<>();
    for (CallRecord c : calls) {
      hist.merge((int) (c.waitMs() / binMs), 1, Integer::sum);
    }
    int nBins = Math.max(8, hist.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
    int max = Math.max(2, hist.values().stream().mapToInt(Integer::intValue).max().orElse(1));
    int width = 760;
    int height = 160;
    int left = 40;
    int bottom = 30;
    double barW = (double) (width - left - 10) / nBins;
    double unit = (double) (height - bottom - 10) / max;
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
        + "width=\"%d\" height=\"%d\" data-mode=\"%s\" data-chart=\"%s\" role=\"img\">", width, height, r.mode,
        chart));
    for (Map.Entry<Integer, Integer> e : hist.entrySet()) {
      double h = e.getValue() * unit;
      sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          + "fill=\"#4a5568\" data-wait-bin=\"%d\" data-count=\"%d\"><title>%d calls waited %d-%d ms</title></rect>",
          left + e.getKey() * barW + 1, height - bottom - h, Math.max(1, barW - 2), h, e.getKey(), e.getValue(),
          e.getValue(), e.getKey() * binMs, e.getKey() * binMs + binMs));
    }
    int labelEvery = Math.max(2, (nBins + 7) / 8); // at most about 8 labels, so that they never run together
    for (int i = 0; i < nBins; i += labelEvery) {
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%d ms</text>",
          left + i * barW, height - 10, i * binMs));
    }
    sb.append("</svg>");
    return sb.toString();
  }
}
