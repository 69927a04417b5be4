package io.pixquota.demo;

import io.pixquota.demo.ReportCharts.Chart;
import io.pixquota.harness.ForeignConsumer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The demo's HTML report: one self-contained file (inline SVG and style, no script, font or external resource),
 * charts as wide as the page. Per mode: the calls arriving at the provider per 100 ms, stacked by replica, 429s in
 * red, with the provider's rate as a line; one lane per replica, a tick per arrival, so that their interleaving
 * shows; the effective rate (with a foreign system); and the distribution of waits for a slot, with counts. Each
 * chart has axes with units and a one-line reading under it. Every mark that stands for calls carries
 * {@code data-*} attributes (mode, bin, series, lane, count) so that a test can check it against the run.
 */
final class Report {
  static final long BIN_MICROS = 100_000;

  private Report() {}

  /**
   * @param foreign         what the foreign system did (or the priorities run), for the heading; null: neither
   * @param prioritySeconds a priorities run's length (r1 batch, r2 a person), else 0
   */
  static String html(Map<String, ModeResult> results, double capacity, double rate, int replicas, int calls,
      String foreign, int prioritySeconds) {
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>pixquota demo</title>")
        .append("<style>body{font-family:sans-serif;margin:24px;color:#1a202c}h2{margin:32px 0 4px}")
        .append("table{border-collapse:collapse}td,th{border:1px solid #cbd5e0;padding:4px 10px;text-align:right}")
        .append("svg{display:block;width:100%;height:auto}p.reading{margin:2px 0 0;color:#2d3748}")
        .append("</style></head><body>");
    sb.append("<h1>pixquota demo</h1><p>").append(prioritySeconds > 0 ? "" : replicas + " replicas x " + calls)
        .append(prioritySeconds > 0 ? foreign + ". "
            : foreign == null ? " PIX status queries at the same instant. " : " callers; " + foreign + ". ")
        .append("Provider quota per integrator: a burst of 10, refilled at 10 per second. ")
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
    } else if (results.values().stream().anyMatch(r -> r.inFlightCap > 0)) {
      row(sb, results, "provider: most in flight (cap)", r -> r.providerMostInFlight + " (" + r.inFlightCap + ")");
      row(sb, results, "served per s at the provider", r -> String.format(Locale.ROOT, "%.1f",
          r.servedPerSecondAtProvider()));
    } else if (foreign != null) {
      row(sb, results, "foreign calls / 429", r -> r.foreignCalls() + " / " + r.foreignTooManyRequests());
      row(sb, results, "effective rate, lowest (/s)", r -> String.format(Locale.ROOT, "%.2f",
          r.effectiveRateLowest()));
    }
    sb.append("</table>");
    for (ModeResult r : results.values()) {
      chart(sb, r, "calls arriving at the provider, per 100 ms", timeline(r), ReportReadings.arrivals(r));
      chart(sb, r, "one lane per replica: each tick a call reaching the provider", lanes(r), ReportReadings.lanes(r));
      if (r.foreign) {
        chart(sb, r, "the shared bucket's effective rate, as each replica saw it", rates(r, rate),
            String.format(Locale.ROOT, "Lowest: %.2f per second, against %.1f configured: the provider's 429s cut "
                + "the rate for every replica at once, and it climbs back while none comes.", r.effectiveRateLowest(),
                rate));
      }
      chart(sb, r, prioritySeconds > 0 ? "wait for a slot, every call" : "wait for a slot",
          waits(r, r.all(), 250, "waits"), ReportReadings.waits(r.all(), "calls"));
      if (prioritySeconds > 0) {
        List<CallRecord> person = r.callsByReplica.getOrDefault("r2", List.of());
        chart(sb, r, "r2 (a person): wait for a slot, 25 ms bins", waits(r, person, 25, "person-waits"),
            ReportReadings.waits(person, "status checks of r2 (a person)"));
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

  /** A chart under its heading, with its reading under it. */
  private static void chart(StringBuilder sb, ModeResult r, String title, String svg, String reading) {
    sb.append("<h2>").append(r.mode).append(": ").append(title).append("</h2>").append(svg)
        .append("<p class=\"reading\">").append(reading).append("</p>");
  }

  private static String timeline(ModeResult r) {
    Map<Integer, Map<String, Integer>> bins = bins(r);
    int lastBin = bins.isEmpty() ? 0 : ((TreeMap<Integer, Map<String, Integer>>) bins).lastKey();
    int nBins = Math.max(10, lastBin + 1);
    int maxCount = Math.max(2, bins.values().stream().mapToInt(m -> m.values().stream().mapToInt(Integer::intValue)
        .sum()).max().orElse(1));
    Chart c = new Chart(r.mode, "arrivals", 300);
    double top = ReportCharts.niceStep(maxCount / 5.0) * Math.ceil(maxCount / ReportCharts.niceStep(maxCount / 5.0));
    c.yAxis(top, "calls per 100 ms");
    double barW = c.plotWidth() / nBins;
    double unit = c.plotHeight() / top;
    List<String> replicas = new ArrayList<>(new TreeSet<>(r.callsByReplica.keySet()));
    List<String> order = new ArrayList<>(replicas);
    order.addAll(List.of(ForeignConsumer.ID, "429", "foreign-429"));
    for (Map.Entry<Integer, Map<String, Integer>> bin : bins.entrySet()) {
      double base = c.baseY();
      for (String series : order) {
        int count = bin.getValue().getOrDefault(series, 0);
        if (count == 0) {
          continue;
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("mode", r.mode);
        data.put("bin", bin.getKey());
        data.put("series", series);
        data.put("count", count);
        ReportCharts.bar(c.sb, ReportCharts.LEFT + bin.getKey() * barW + 1, Math.max(1, barW - 2), base,
            count * unit, seriesColor(replicas, series), data, String.format(Locale.ROOT, "%s: %d at %d-%d ms",
                series, count, bin.getKey() * 100, bin.getKey() * 100 + 100), null);
        base -= count * unit;
      }
    }
    double quotaY = c.baseY() - unit; // 10 per second = 1 per 100 ms bin
    c.sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#1a202c\" "
        + "stroke-width=\"2\" stroke-dasharray=\"8 5\" data-quota-per-bin=\"1\"/>", ReportCharts.LEFT, quotaY,
        ReportCharts.WIDTH - ReportCharts.RIGHT, quotaY));
    c.sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">"
        + "provider's limit: 10 per second = 1 per 100 ms, after a first burst of 10</text>",
        ReportCharts.WIDTH - ReportCharts.RIGHT - 4, quotaY - 6));
    c.xAxis(ReportCharts.secondTicks(nBins / 10.0, c.plotWidth() / (nBins / 10.0)),
        "time since the first arrival at the provider");
    List<String> labels = new ArrayList<>(replicas);
    List<String> colors = new ArrayList<>();
    replicas.forEach(rep -> colors.add(ReportCharts.color(replicas, rep)));
    labels.add("429");
    colors.add(ReportCharts.RED);
    if (r.foreign) {
      labels.addAll(List.of(ForeignConsumer.ID, "foreign 429"));
      colors.addAll(List.of(ReportCharts.GREY, ReportCharts.PINK));
    }
    c.legend(labels, colors);
    return c.end();
  }

  private static String seriesColor(List<String> replicas, String series) {
    return switch (series) {
      case "429" -> ReportCharts.RED;
      case "foreign-429" -> ReportCharts.PINK;
      case ForeignConsumer.ID -> ReportCharts.GREY;
      default -> ReportCharts.color(replicas, series);
    };
  }

  /** The provider's arrivals of each replica (and the foreign system), each on its own lane. */
  private static String lanes(ModeResult r) {
    List<String> lanes = new ArrayList<>(new TreeSet<>(r.callsByReplica.keySet()));
    if (r.foreign) {
      lanes.add(ForeignConsumer.ID);
    }
    long first = r.providerEvents.stream().mapToLong(e -> ((Number) e.get("atMicros")).longValue()).min().orElse(0);
    long last = r.providerEvents.stream().mapToLong(e -> ((Number) e.get("atMicros")).longValue()).max().orElse(0);
    double spanS = Math.max(1, Math.ceil((last - first) / 1e6 * 10) / 10);
    int laneH = 34;
    Chart c = new Chart(r.mode, "lanes", ReportCharts.TOP + laneH * lanes.size() + ReportCharts.BOTTOM);
    double xPerS = c.plotWidth() / spanS;
    Map<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i < lanes.size(); i++) {
      double y = ReportCharts.TOP + i * laneH;
      c.sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%s</text>", ReportCharts.LEFT, y,
          c.plotWidth(), laneH - 6, i % 2 == 0 ? "#f7fafc" : "#edf2f7", ReportCharts.LEFT - 6, y + laneH / 2.0 + 2,
          lanes.get(i)));
    }
    List<String> replicas = lanes.subList(0, r.callsByReplica.size());
    for (Map<String, Object> e : r.providerEvents) {
      String lane = ModeResult.isForeign(e) ? ForeignConsumer.ID : String.valueOf(e.get("replica"));
      int i = lanes.indexOf(lane);
      if (i < 0) {
        continue;
      }
      boolean refused = ((Number) e.get("status")).intValue() == 429;
      double x = ReportCharts.LEFT + (((Number) e.get("atMicros")).longValue() - first) / 1e6 * xPerS;
      double y = ReportCharts.TOP + i * laneH;
      c.sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"2\" height=\"%d\" fill=\"%s\" "
          + "data-lane=\"%s\"%s/>", x - 1, y + 3, laneH - 12, refused ? ReportCharts.RED : lane.equals(
              ForeignConsumer.ID) ? ReportCharts.GREY : ReportCharts.color(replicas, lane), lane,
          refused ? " data-refused=\"1\"" : ""));
      counts.merge(lane, 1, Integer::sum);
    }
    c.xAxis(ReportCharts.secondTicks(spanS, xPerS), "time since the first arrival at the provider");
    return c.end();
  }

  /** A histogram of {@code calls}' waits in bins of {@code binMs}, each bar labelled with its count. */
  private static String waits(ModeResult r, List<CallRecord> calls, int binMs, String chart) {
    Map<Integer, Integer> hist = new TreeMap<>();
    for (CallRecord call : calls) {
      hist.merge((int) (call.waitMs() / binMs), 1, Integer::sum);
    }
    int nBins = Math.max(8, hist.keySet().stream().mapToInt(Integer::intValue).max().orElse(0) + 1);
    int max = Math.max(2, hist.values().stream().mapToInt(Integer::intValue).max().orElse(1));
    Chart c = new Chart(r.mode, chart, 230);
    double top = ReportCharts.niceStep(max / 4.0) * Math.ceil(max * 1.15 / ReportCharts.niceStep(max / 4.0));
    c.yAxis(top, "calls");
    double barW = c.plotWidth() / nBins;
    double unit = c.plotHeight() / top;
    for (Map.Entry<Integer, Integer> e : hist.entrySet()) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("wait-bin", e.getKey());
      data.put("count", e.getValue());
      ReportCharts.bar(c.sb, ReportCharts.LEFT + e.getKey() * barW + 1, Math.max(1, barW - 2), c.baseY(),
          e.getValue() * unit, "#4a5568", data, String.format(Locale.ROOT, "%d calls waited %d-%d ms", e.getValue(),
              e.getKey() * binMs, e.getKey() * binMs + binMs), Integer.toString(e.getValue()));
    }
    List<Object[]> ticks = new ArrayList<>();
    int labelEvery = Math.max(1, (nBins + 9) / 10);
    for (int i = 0; i <= nBins; i += labelEvery) {
      ticks.add(new Object[] {ReportCharts.LEFT + i * barW, i * binMs + " ms"});
    }
    c.xAxis(ticks, "wait for a slot, " + binMs + " ms bins");
    return c.end();
  }

  /**
   * The effective rate over time, one step line per replica (from its gauge), with the configured rate dashed. Each
   * line carries {@code data-replica} and {@code data-lowest}.
   */
  private static String rates(ModeResult r, double configured) {
    double lastMs = r.effectiveRate.values().stream().flatMap(List::stream).mapToDouble(row -> row[0]).max()
        .orElse(0);
    double spanS = Math.max(1, lastMs / 1000);
    Chart c = new Chart(r.mode, "rate", 240);
    double top = Math.ceil(configured * 1.2);
    c.yAxis(top, "calls per second");
    double xPerS = c.plotWidth() / spanS;
    double ys = c.plotHeight() / top;
    double cy = c.baseY() - configured * ys;
    c.sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#1a202c\" "
        + "stroke-width=\"2\" stroke-dasharray=\"8 5\"/><text x=\"%d\" y=\"%.1f\" font-size=\"12\">configured: "
        + "%.1f per second</text>", ReportCharts.LEFT, cy, ReportCharts.WIDTH - ReportCharts.RIGHT, cy,
        ReportCharts.LEFT + 6, cy - 6, configured));
    List<String> replicas = new ArrayList<>(new TreeSet<>(r.effectiveRate.keySet()));
    for (String replica : replicas) {
      List<double[]> rows = r.effectiveRate.get(replica);
      StringBuilder points = new StringBuilder();
      double prevY = -1;
      for (double[] row : rows) {
        double x = ReportCharts.LEFT + row[0] / 1000 * xPerS;
        double y = c.baseY() - row[1] * ys;
        if (prevY >= 0) {
          points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, prevY));
        }
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        prevY = y;
      }
      double lowest = rows.stream().mapToDouble(row -> row[1]).min().orElse(0);
      c.sb.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
          + "points=\"%s\" data-replica=\"%s\" data-lowest=\"%.3f\"><title>%s: lowest %.2f/s</title></polyline>",
          ReportCharts.color(replicas, replica), points.toString().trim(), replica, lowest, replica, lowest));
    }
    c.xAxis(ReportCharts.secondTicks(spanS, xPerS), "time since the replica started");
    List<String> colors = new ArrayList<>();
    replicas.forEach(rep -> colors.add(ReportCharts.color(replicas, rep)));
    c.legend(replicas, colors);
    return c.end();
  }
}
