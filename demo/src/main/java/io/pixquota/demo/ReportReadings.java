package io.pixquota.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The one-line reading under each chart of the report, computed from the run. */
final class ReportReadings {
  private ReportReadings() {}

  static String arrivals(ModeResult r) {
    Map<Integer, Map<String, Integer>> bins = Report.bins(r);
    int peak = bins.values().stream().mapToInt(m -> m.values().stream().mapToInt(Integer::intValue).sum()).max()
        .orElse(0);
    long refused = r.tooManyRequests();
    String refusals = refused == 0 ? "the provider refused none of our calls"
        : String.format(Locale.ROOT, "the provider refused %d of our calls with 429 (red), every call above its burst "
            + "and rate", refused);
    return String.format(Locale.ROOT, "Most in one 100 ms: %d; %s; it accepted at most %d in any second (its burst "
        + "of 10 and what refilled in that second).", peak, refusals, r.providerMaxInWindow);
  }

  static String lanes(ModeResult r) {
    List<String> order = new ArrayList<>();
    r.providerEvents.stream().filter(e -> !ModeResult.isForeign(e))
        .sorted((a, b) -> Long.compare(((Number) a.get("atMicros")).longValue(),
            ((Number) b.get("atMicros")).longValue()))
        .forEach(e -> order.add(String.valueOf(e.get("replica"))));
    if (r.callsByReplica.size() < 2 || order.size() < 2) {
      return "One replica: its calls reach the provider one after another.";
    }
    int switches = 0;
    for (int i = 1; i < order.size(); i++) {
      switches += order.get(i).equals(order.get(i - 1)) ? 0 : 1;
    }
    return String.format(Locale.ROOT, "%d of %d consecutive arrivals came from a different replica than the one "
        + "before: one quota, served in the order the calls asked, whichever replica they come from.", switches,
        order.size() - 1);
  }

  static String waits(List<CallRecord> calls, String what) {
    if (calls.isEmpty()) {
      return "No " + what + ".";
    }
    double[] waits = calls.stream().mapToDouble(CallRecord::waitMs).sorted().toArray();
    double median = waits[(waits.length - 1) / 2];
    double max = waits[waits.length - 1];
    if (max < 1) {
      return String.format(Locale.ROOT, "%d %s, none waited: they left at once (direct calls do not ask the "
          + "bucket).", waits.length, what);
    }
    return String.format(Locale.ROOT, "%d %s: half waited %.0f ms or less, the slowest %.0f ms.", waits.length, what,
        median, max);
  }
}
