package io.pixquota.demo;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The DICT scenario's HTML report: the runs' table, and DICT's participant anti-scan bucket over each run (its own
 * {@code GET /policies} answers), the drain the scanner causes directly and the bucket the mirror keeps for everyone.
 */
final class DictReport {
  private DictReport() {}

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }

  static String html(Map<String, DictResult> results, String policies) {
    ByteArrayOutputStream table = new ByteArrayOutputStream();
    DictTable.print(new PrintStream(table, true, StandardCharsets.UTF_8), results);
    StringBuilder sb = new StringBuilder("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<title>pixquota demo: DICT</title><style>body{font-family:sans-serif;margin:24px;color:#1a202c}"
        + "pre{background:#f7fafc;padding:12px}svg{display:block;width:100%;height:auto}</style></head><body>"
        + "<h1>pixquota demo: DICT lookups, a scan and honest payers</h1><p>Policies in force: ")
        .append(esc(policies)).append("</p><pre>")
        .append(esc(table.toString(StandardCharsets.UTF_8))).append("</pre>");
    double max = 1;
    double span = 1;
    for (DictResult r : results.values()) {
      for (double[] s : r.samples()) {
        max = Math.max(max, s[1]);
        span = Math.max(span, s[0]);
      }
    }
    ReportCharts.Chart chart = new ReportCharts.Chart("dict", "participant-bucket", 320);
    chart.yAxis(max, "tokens at DICT");
    double xPerSecond = chart.plotWidth() / span;
    chart.xAxis(ReportCharts.secondTicks(span, xPerSecond), "seconds into the run");
    List<String> labels = new ArrayList<>();
    List<String> colors = new ArrayList<>();
    int i = 0;
    for (DictResult r : results.values()) {
      String color = i++ == 0 ? ReportCharts.RED : ReportCharts.COLORS[0];
      StringBuilder points = new StringBuilder();
      for (double[] s : r.samples()) {
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", ReportCharts.LEFT + s[0] * xPerSecond,
            chart.baseY() - Math.max(0, s[1]) / max * chart.plotHeight()));
      }
      chart.sb.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(color).append("\" points=\"")
          .append(points.toString().trim()).append("\" data-run=\"").append(r.name).append("\"/>");
      labels.add(r.name.equals("sdk") ? "through the SDK" : r.name);
      colors.add(color);
    }
    chart.legend(labels, colors);
    sb.append("<h2>DICT's participant anti-scan bucket</h2>").append(chart.end())
        .append("<p>Direct, the scanner's lookups (and its refusals, which DICT charges too) empty the bucket every "
            + "customer of the participant shares, and honest lookups get 429. Through the SDK, a scanner that keeps "
            + "one end-user id is refused once its own bucket is spent; one that takes a new id for every lookup "
            + "spends the bucket down to its reserve, which only payers with standing may use.</p>")
        .append("</body></html>");
    return sb.toString();
  }
}
