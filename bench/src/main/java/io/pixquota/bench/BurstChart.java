package io.pixquota.bench;

import io.pixquota.mock.QuotaPolicy;
import java.util.Locale;
import java.util.Map;

/** Scenario 1's timelines side by side: one lane per setting, a dot per arrival at the provider. */
final class BurstChart {
  private BurstChart() {}

  static String svg(Map<PeersBench.Setting, PeersFigures.Phase> bursts, int n, double capacity, double rate,
      QuotaPolicy policy, double providerRate) {
    double maxSeconds = 5;
    for (PeersFigures.Phase p : bursts.values()) {
      for (long[] e : p.events()) {
        maxSeconds = Math.max(maxSeconds, Math.ceil((e[0] - p.startNanos()) / 1e9));
      }
    }
    int left = 330;
    int width = 980;
    int lane = 34;
    int top = 40;
    int height = top + lane * bursts.size() + 50;
    double scale = (width - left - 20) / maxSeconds;
    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        + "font-family=\"sans-serif\" font-size=\"12\">%n", width, height));
    s.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    s.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"20\" font-size=\"14\">Cold burst, 2 replicas x %d calls: "
        + "arrivals at the mock BACEN (%d + %s/s). Green: served; red: 429; bar: first arrival + ideal</text>%n",
        n / 2, policy.limit(), PeersBench.fmt(providerRate)));
    for (int sec = 0; sec <= maxSeconds; sec++) {
      double x = left + sec * scale;
      s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
          + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d s</text>%n", x, top - 5, x, height - 40, x,
          height - 25, sec));
    }
    int i = 0;
    for (Map.Entry<PeersBench.Setting, PeersFigures.Phase> entry : bursts.entrySet()) {
      PeersBench.Setting setting = entry.getKey();
      PeersFigures.Phase p = entry.getValue();
      double y = top + lane * i + lane / 2.0;
      long served = p.events().stream().filter(e -> e[1] != 429).count();
      s.append(String.format(Locale.ROOT, "<text x=\"10\" y=\"%.1f\">%s</text>%n", y + 4,
          escape(setting.label()) + " (" + served + " ok, " + (p.events().size() - served) + " x 429)"));
      long first = Long.MAX_VALUE;
      for (long[] e : p.events()) {
        first = Math.min(first, e[0]);
        double x = left + (e[0] - p.startNanos()) / 1e9 * scale;
        s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" "
            + "fill-opacity=\"0.7\"/>%n", x, y, e[1] == 429 ? "#c62828" : "#2e7d32"));
      }
      if (first != Long.MAX_VALUE) {
        double ideal = setting.planner() ? (n - policy.limit()) / providerRate : (n - capacity) / rate;
        double x = left + ((first - p.startNanos()) / 1e9 + ideal) * scale;
        s.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\" "
            + "stroke-width=\"2\"/>%n", x, y - 10, x, y + 10));
      }
      i++;
    }
    s.append("</svg>\n");
    return s.toString();
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
