package io.pixquota.bench;

import io.pixquota.bench.EnduranceChecks.Check;
import io.pixquota.bench.EnduranceFaults.Fault;
import io.pixquota.bench.EnduranceFleet.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * {@code bench endurance}'s report, one self-contained HTML page in the demo report's style: one timeline (API Pix's
 * rate at the provider against its limit, heap after GC and threads per replica, Redis's keys), the faults drawn as
 * bands across it, then the table of checks.
 */
final class EnduranceReport {
  private static final int W = 1100;
  private static final int H = 150;
  private static final int LEFT = 60;
  private static final int RIGHT = 30;
  private static final String[] COLORS = {"#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280", "#4a5568"};

  private EnduranceReport() {}

  static String html(double minutes, List<Map<String, Object>> series, List<Sample> samples,
      Map<Fault, Map<String, Long>> costs, List<Check> checks) {
    List<Fault> faults = List.copyOf(costs.keySet());
    double endS = minutes * 60;
    StringBuilder sb = new StringBuilder("<!doctype html><html><head><meta charset=\"utf-8\">")
        .append("<title>pixquota endurance</title>")
        .append("<style>body{font-family:sans-serif;margin:24px;color:#1a202c}h2{margin:32px 0 4px}")
        .append("table{border-collapse:collapse}td,th{border:1px solid #cbd5e0;padding:4px 10px;text-align:left}")
        .append("svg{display:block;width:100%;height:auto}p.reading{margin:2px 0 0;color:#2d3748}")
        .append("td.failed{color:#c53030;font-weight:bold}</style></head><body>")
        .append(String.format(Locale.ROOT, "<h1>pixquota endurance: %.0f minutes</h1>", minutes))
        .append("<p>Faults are the grey bands, with the 10 s after each that its effects may last.</p>");
    List<double[]> rate = new ArrayList<>();
    for (int i = 1; i < series.size(); i++) {
      double dt = (num(series.get(i), "atMs") - num(series.get(i - 1), "atMs")) / 1000;
      rate.add(new double[] {num(series.get(i), "atMs") / 1000,
          (num(series.get(i), "pixAccepted") - num(series.get(i - 1), "pixAccepted")) / dt});
    }
    chart(sb, "API Pix at the provider, calls per second (the limit: 10 per second, dashed)", endS, faults,
        Map.of("accepted", rate), 10);
    chart(sb, "heap after GC per replica, MiB", endS, faults, bySeries(samples,
        v -> v.values().get("heapAfterGcBytes").asDouble() / (1024 * 1024)), -1);
    chart(sb, "live threads per replica", endS, faults, bySeries(samples, v -> v.values().get("threads").asDouble()),
        -1);
    Map<String, List<double[]>> keys = new TreeMap<>();
    for (Map<String, Object> row : series) {
      @SuppressWarnings("unchecked")
      Map<String, Number> redis = (Map<String, Number>) row.get("redis");
      redis.forEach((k, v) -> {
        if (!k.equals("used_memory") && v.longValue() >= 0) {
          keys.computeIfAbsent(k, x -> new ArrayList<>()).add(new double[] {num(row, "atMs") / 1000, v.doubleValue()});
        }
      });
    }
    chart(sb, "Redis keys by kind", endS, faults, keys, -1);
    sb.append("<h2>Faults and what they cost</h2><p class=\"reading\">The callers' outcomes other than served while "
        + "each fault ran and for 10 s after; the quota's 429s against each fault's bound are among the checks.</p>"
        + "<table><tr><th>fault</th><th>outcomes other than served</th></tr>");
    costs.forEach((f, cost) -> sb.append("<tr><td>").append(escape(f.toString())).append("</td><td>")
        .append(escape(EnduranceCosts.describe(cost))).append("</td></tr>"));
    sb.append("</table><h2>Checks</h2><table><tr><th>check</th><th>figure</th><th></th></tr>");
    for (Check c : checks) {
      sb.append("<tr><td>").append(escape(c.name())).append("</td><td>").append(escape(c.figure())).append("</td>")
          .append(c.passed() ? "<td>ok</td>" : "<td class=\"failed\">FAILED</td>").append("</tr>");
    }
    return sb.append("</table></body></html>").toString();
  }

  private static Map<String, List<double[]>> bySeries(List<Sample> samples, ToDoubleFunction<Sample> value) {
    Map<String, List<double[]>> out = new TreeMap<>();
    for (Sample s : samples) {
      out.computeIfAbsent("r" + s.replica() + (s.incarnation() == 1 ? "" : "." + s.incarnation()),
          k -> new ArrayList<>()).add(new double[] {s.atMs() / 1000.0, value.applyAsDouble(s)});
    }
    return out;
  }

  /** One chart of the timeline: lines by name over time, fault bands, a dashed limit when {@code limit >= 0}. */
  private static void chart(StringBuilder sb, String title, double endS, List<Fault> faults,
      Map<String, List<double[]>> lines, double limit) {
    double max = Math.max(limit, lines.values().stream().flatMap(List::stream).mapToDouble(p -> p[1]).max()
        .orElse(1));
    double min = limit >= 0 ? 0 : lines.values().stream().flatMap(List::stream).mapToDouble(p -> p[1]).min()
        .orElse(0);
    double lo = Math.max(0, min - (max - min) * 0.1);
    double hi = max + (max - lo) * 0.1 + 1e-9;
    sb.append("<h2>").append(escape(title)).append("</h2>")
        .append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
            + "width=\"100%%\">", W, H + 20));
    for (Fault f : faults) {
      double x0 = x(f.startMs() / 1000.0, endS);
      double x1 = x((f.endMs() + Fault.SETTLE_MS) / 1000.0, endS);
      sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%d\" fill=\"#e2e8f0\">"
          + "<title>%s</title></rect>", x0, Math.max(1, x1 - x0), H, escape(f.toString())));
    }
    sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"12\" font-size=\"11\" text-anchor=\"end\">%.1f</text>"
        + "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">%.1f</text>", LEFT - 4, hi, LEFT - 4, H, lo));
    for (int m = 0; m <= (int) (endS / 60); m += Math.max(1, (int) (endS / 60 / 10))) {
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">"
          + "%d min</text>", x(m * 60.0, endS), H + 16, m));
    }
    if (limit >= 0) {
      double y = y(limit, lo, hi);
      sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c53030\" "
          + "stroke-dasharray=\"6 4\"/>", LEFT, W - RIGHT, y, y));
    }
    int c = 0;
    StringBuilder legend = new StringBuilder("<p class=\"reading\">");
    for (Map.Entry<String, List<double[]>> line : lines.entrySet()) {
      String color = COLORS[c++ % COLORS.length];
      StringBuilder points = new StringBuilder();
      for (double[] p : line.getValue()) {
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x(p[0], endS), y(p[1], lo, hi)));
      }
      sb.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"1.5\" points=\"")
          .append(points.toString().trim()).append("\"/>");
      legend.append("<span style=\"color:").append(color).append("\">&#9632; ").append(escape(line.getKey()))
          .append("</span> ");
    }
    sb.append("</svg>").append(legend).append("</p>");
  }

  private static double x(double s, double endS) {
    return LEFT + (W - LEFT - RIGHT) * Math.min(1, s / endS);
  }

  private static double y(double v, double lo, double hi) {
    return H - (v - lo) / (hi - lo) * (H - 4);
  }

  private static double num(Map<String, Object> row, String key) {
    return ((Number) row.get(key)).doubleValue();
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
