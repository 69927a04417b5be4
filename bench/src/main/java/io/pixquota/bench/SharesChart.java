package io.pixquota.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bench shares}' picture: a dot per served call, at the time its service asked (x) and how long it waited for
 * its slot (y, log scale from 1 ms to 10 s), one colour per service.
 */
final class SharesChart {
  private static final String[] COLOURS = {"#1b7837", "#c51b7d", "#2166ac", "#e08214"};

  private SharesChart() {}

  /** @param calls per service, each served call's {asked, left} nanos */
  static String svg(String title, Map<String, List<long[]>> calls, long startNanos, int seconds) {
    int left = 70;
    int width = 900;
    int top = 50;
    int plot = 300;
    double xScale = (width - left - 20) / (double) seconds;
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
        + "width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" "
        + "height=\"100%%\" fill=\"white\"/>%n<text x=\"10\" y=\"20\" font-size=\"14\">%s</text>%n", width,
        top + plot + 60, title));
    for (int ms = 1; ms <= 10_000; ms *= 10) {
      double y = y(ms, top, plot);
      s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text "
          + "x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", left, y, width - 20, y, left - 5, y + 4,
          ms < 1000 ? ms + " ms" : ms / 1000 + " s"));
    }
    for (int sec = 0; sec <= seconds; sec += 10) {
      double x = left + sec * xScale;
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d s</text>%n", x,
          top + plot + 18, sec));
    }
    int i = 0;
    for (Map.Entry<String, List<long[]>> e : calls.entrySet()) {
      String colour = COLOURS[i % COLOURS.length];
      for (long[] c : e.getValue()) {
        double x = left + (c[0] - startNanos) / 1e9 * xScale;
        if (x >= left && x <= width - 20) {
          s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.6\" fill=\"%s\"/>%n", x,
              y((c[1] - c[0]) / 1e6, top, plot), colour));
        }
      }
      s.append(String.format(Locale.ROOT, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">"
          + "%s: %d served</text>%n", left + 10 + 220 * i, top + plot + 40, colour, left + 20 + 220 * i,
          top + plot + 44, e.getKey(), e.getValue().size()));
      i++;
    }
    return s.append("</svg>\n").toString();
  }

  /** The wait on a log scale: 1 ms (or less) at the bottom, 10 s at the top. */
  private static double y(double ms, int top, int plot) {
    double v = Math.log10(Math.max(1, Math.min(10_000, ms))) / 4;
    return top + plot - v * plot;
  }
}
