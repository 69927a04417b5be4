package io.pixquota.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's SVG charts: a fixed drawing space ({@link #WIDTH} units wide) that the page scales to its own width,
 * with axes that carry their units and tick values. Every chart opens with {@code data-mode} and
 * {@code data-chart}; the marks that stand for calls carry {@code data-*} counts a test can add up.
 */
final class ReportCharts {
  static final int WIDTH = 1100;
  static final String[] COLORS = {"#2b6cb0", "#38a169", "#805ad5", "#d69e2e", "#319795", "#b83280"};
  static final String RED = "#e53e3e";
  static final String GREY = "#a0aec0";
  static final String PINK = "#f6a5a5";
  static final int LEFT = 64;
  static final int RIGHT = 16;
  static final int TOP = 28;
  static final int BOTTOM = 46;

  private ReportCharts() {}

  /** One chart being drawn: its size and its plot area. */
  static final class Chart {
    final StringBuilder sb = new StringBuilder();
    final int height;

    Chart(String mode, String chart, int height) {
      this.height = height;
      sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
          + "width=\"100%%\" data-mode=\"%s\" data-chart=\"%s\" role=\"img\">", WIDTH, height, mode, chart));
    }

    double plotWidth() {
      return WIDTH - LEFT - RIGHT;
    }

    double plotHeight() {
      return height - TOP - BOTTOM;
    }

    double baseY() {
      return height - BOTTOM;
    }

    /** A y axis from 0 to {@code max} with about 5 labelled ticks and light grid lines, and its unit. */
    void yAxis(double max, String unit) {
      double step = niceStep(max / 5);
      for (double v = 0; v <= max + 1e-9; v += step) {
        double y = baseY() - v / max * plotHeight();
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e2e8f0\"/>"
            + "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%s</text>", LEFT, y, WIDTH - RIGHT,
            y, LEFT - 6, y + 4, number(v)));
      }
      sb.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
          + "transform=\"rotate(-90 14 %.1f)\">%s</text>", TOP + plotHeight() / 2, TOP + plotHeight() / 2, unit));
    }

    /** An x axis line with labels at {@code ticks} (x in drawing units, text), and its unit under them. */
    void xAxis(List<Object[]> ticks, String unit) {
      sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#718096\"/>",
          LEFT, baseY(), WIDTH - RIGHT, baseY()));
      for (Object[] t : ticks) {
        double x = (double) t[0];
        // a label at the right edge ends there rather than run off the drawing
        String anchor = x > WIDTH - RIGHT - 30 ? "end" : "middle";
        sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"%s\">"
            + "%s</text>", x, baseY() + 16, anchor, t[1]));
      }
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s"
          + "</text>", LEFT + plotWidth() / 2, height - 6, unit));
    }

    /** Labelled swatches across the top right. */
    void legend(List<String> labels, List<String> colors) {
      int x = WIDTH - RIGHT - 110 * labels.size();
      for (int i = 0; i < labels.size(); i++) {
        sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"8\" width=\"12\" height=\"12\" fill=\"%s\"/>"
            + "<text x=\"%d\" y=\"18\" font-size=\"12\">%s</text>", x + 110 * i, colors.get(i), x + 110 * i + 16,
            labels.get(i)));
      }
    }

    String end() {
      return sb.append("</svg>").toString();
    }
  }

  /** Ticks every {@code stepSeconds} over {@code spanSeconds}, at {@code xPerSecond} drawing units a second. */
  static List<Object[]> secondTicks(double spanSeconds, double xPerSecond) {
    double step = niceStep(spanSeconds / 10);
    List<Object[]> ticks = new ArrayList<>();
    for (double s = 0; s <= spanSeconds + 1e-9; s += step) {
      ticks.add(new Object[] {LEFT + s * xPerSecond, number(s) + " s"});
    }
    return ticks;
  }

  /** 1, 2 or 5 times a power of ten, at least {@code raw}. */
  static double niceStep(double raw) {
    if (raw <= 0) {
      return 1;
    }
    double p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * p >= raw) {
        return Math.max(m * p, 1e-9);
      }
    }
    return 10 * p;
  }

  static String number(double v) {
    return Math.abs(v - Math.rint(v)) < 1e-9 ? Long.toString(Math.round(v))
        : String.format(Locale.ROOT, "%.1f", v);
  }

  /** The color of a replica's calls: its place among the run's replicas. */
  static String color(List<String> replicas, String replica) {
    return COLORS[Math.max(0, replicas.indexOf(replica)) % COLORS.length];
  }

  /** A bar with a count label above it. */
  static void bar(StringBuilder sb, double x, double w, double base, double h, String fill, Map<String, Object> data,
      String title, String label) {
    StringBuilder attrs = new StringBuilder();
    data.forEach((k, v) -> attrs.append(" data-").append(k).append("=\"").append(v).append('"'));
    sb.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s>"
        + "<title>%s</title></rect>", x, base - h, w, h, fill, attrs, title));
    if (label != null) {
      sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s"
          + "</text>", x + w / 2, base - h - 4, label));
    }
  }
}
