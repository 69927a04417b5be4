package io.pixquota.demo;

import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The demo's table on the terminal: one column per run, one row per figure. */
final class ResultTable {
  /** The mock's policy in the foreign-consumer run: its default, 10 + 10 per second. */
  private static final QuotaPolicy PROVIDER = MockConfig.defaults().policy();

  /** The table's row of each failure kind. */
  static final Map<String, String> FAILURE_LABELS = Map.of(CallRecord.REFUSED_MAX_WAIT, "refused after max wait",
      CallRecord.BUCKET_UNAVAILABLE, "bucket unavailable", CallRecord.TRANSPORT, "transport errors",
      CallRecord.PROVIDER_5XX, "provider 5xx", CallRecord.OTHER, "other failures");

  private ResultTable() {}

  /**
   * Prints the runs side by side, then a line that reads them.
   *
   * @param prioritySeconds a priorities run's length (r1 batch, r2 interactive), else 0
   */
  static void print(PrintStream out, Map<String, ModeResult> results, int allCalls, double capacity, double rate,
      Double foreignRate, int prioritySeconds, long maxWaitMs) {
    List<String> modes = new ArrayList<>(results.keySet());
    List<String> rows = new ArrayList<>(List.of("served", "429 Too Many Requests"));
    // each failure kind that happened, by name; when none did, one row that says so
    List<String> kinds = CallRecord.FAILURES.stream()
        .filter(kind -> results.values().stream().anyMatch(r -> r.count(kind) > 0)).toList();
    rows.addAll(kinds.isEmpty() ? List.of("failures (any other kind)") : kinds.stream().map(FAILURE_LABELS::get)
        .toList());
    rows.addAll(List.of("elapsed", "wait p50", "wait p99", "Redis round trips per call",
        "provider: most accepted in any 1 s"));
    boolean inFlight = results.values().stream().anyMatch(r -> r.inFlightCap > 0);
    if (inFlight) {
      rows.addAll(List.of("provider: most in flight", "served per s at the provider"));
    }
    if (foreignRate != null) {
      rows.addAll(List.of("foreign calls", "foreign 429", "effective rate, lowest", "quota left to us, used",
          "quota headers: lowered / read"));
    }
    if (prioritySeconds > 0) {
      rows.addAll(List.of("r2 (a person) wait p50", "r2 (a person) wait p99", "r2 (a person) wait max",
          "r1 (batch) served per s"));
    }
    out.println();
    out.printf(Locale.ROOT, "%-36s", "");
    modes.forEach(m -> out.printf(Locale.ROOT, "%14s", m));
    out.println();
    for (String row : rows) {
      out.printf(Locale.ROOT, "%-36s", row);
      String kind = kinds.stream().filter(k -> FAILURE_LABELS.get(k).equals(row)).findFirst().orElse(null);
      for (String m : modes) {
        ModeResult r = results.get(m);
        String cell = kind != null ? Long.toString(r.count(kind)) : switch (row) {
          case "served" -> Long.toString(r.served());
          case "429 Too Many Requests" -> Long.toString(r.tooManyRequests());
          case "failures (any other kind)" -> Long.toString(r.otherFailures());
          case "elapsed" -> String.format(Locale.ROOT, "%.2f s", r.elapsedMs() / 1000);
          case "wait p50" -> String.format(Locale.ROOT, "%.0f ms", r.waitPercentileMs(50));
          case "wait p99" -> String.format(Locale.ROOT, "%.0f ms", r.waitPercentileMs(99));
          case "Redis round trips per call" -> String.format(Locale.ROOT, r.redisCountPartial == null ? "%.2f"
              : "%.2f *", r.redisRoundTripsPerCall());
          case "foreign calls" -> Long.toString(r.foreignCalls());
          case "foreign 429" -> Long.toString(r.foreignTooManyRequests());
          case "quota headers: lowered / read" -> r.quotaHeaders.getOrDefault("lowered", 0L) + " / "
              + r.quotaHeaders.values().stream().mapToLong(Long::longValue).sum();
          case "quota left to us, used" -> String.format(Locale.ROOT, "%.1f%%", 100 * r.quotaLeftUsed(PROVIDER
              .limit(), PROVIDER.refillTokens() * 1000.0 / PROVIDER.periodMillis()));
          case "effective rate, lowest" -> String.format(Locale.ROOT, "%.2f/s", r.effectiveRateLowest());
          case "r2 (a person) wait p50" -> String.format(Locale.ROOT, "%.0f ms", r.waitPercentileMs("r2", 50));
          case "r2 (a person) wait p99" -> String.format(Locale.ROOT, "%.0f ms", r.waitPercentileMs("r2", 99));
          case "r2 (a person) wait max" -> String.format(Locale.ROOT, "%.0f ms", r.waitPercentileMs("r2", 100));
          case "r1 (batch) served per s" -> String.format(Locale.ROOT, "%.2f", r.servedPerSecond("r1",
              prioritySeconds));
          case "provider: most in flight" -> Long.toString(r.providerMostInFlight);
          case "served per s at the provider" -> String.format(Locale.ROOT, "%.1f", r.servedPerSecondAtProvider());
          default -> Long.toString(r.providerMaxInWindow);
        };
        out.printf(Locale.ROOT, "%14s", cell);
      }
      out.println();
    }
    ModeResult throttled = results.get("throttled");
    if (prioritySeconds > 0) {
      out.printf(Locale.ROOT, "%nOne bucket of %.1f per second for both. one-class: every call books the next free "
          + "slot, so the person waits behind the batch job's booked calls. priorities: the batch job's calls are "
          + "BATCH, which books no slot ahead, so the person waits at most one slot (%.0f ms) and the batch job "
          + "still takes every slot the person leaves.%n", rate, 1000 / rate);
    }
    if (results.containsKey("adaptive")) {
      out.printf(Locale.ROOT, "%nThe provider answers 10 per second to everyone on these credentials; the foreign "
          + "system takes %s of them. adaptive: the first 429 the bucket did not expect cut the shared rate for "
          + "every replica, and it climbs back while no 429 comes.%s%n", number(foreignRate),
          results.containsKey("headers") ? " headers: the same, and each answer's RateLimit header (the provider's "
              + "remaining quota, which counts the foreign calls) lowers the shared bucket when it has fewer left "
              + "than the bucket expected." : "");
    }
    for (ModeResult r : results.values()) {
      if (r.redisCountPartial != null) {
        out.printf(Locale.ROOT, "%n* %s: Redis round trips counted where a node could be watched; %s%n", r.mode,
            r.redisCountPartial);
      }
      String hint = r.maxWaitHint(allCalls, capacity, rate, maxWaitMs,
          foreignRate == null && prioritySeconds == 0);
      if (hint != null) {
        out.printf(Locale.ROOT, "%n%s%n", hint);
      }
    }
    if (inFlight) {
      ModeResult any = results.values().iterator().next();
      double physical = any.inFlightCap * 1000.0 / any.latencyMs;
      double whole = throttled == null ? 0 : throttled.servedPerSecondAtProvider();
      double steady = throttled == null ? 0 : throttled.steadyPerSecondAtProvider();
      out.printf(Locale.ROOT, "%nThe provider takes %d calls in flight at once, each answer %d ms: at most %s "
          + "calls per second. throttled: %.1f per second after the first second, %.1f%% of it (the whole run, "
          + "cold start included: %.1f per second, %.1f%%), %s%n", any.inFlightCap, any.latencyMs, number(physical),
          steady, 100 * steady / physical, whole, 100 * whole / physical, throttled != null
              && throttled.tooManyRequests() == 0 ? "zero 429." : "429s seen: the pool is not under the cap!");
      return;
    }
    if (throttled != null) {
      double ideal = Math.max(0, (allCalls - capacity) / rate);
      out.printf(Locale.ROOT, "%nThrottled ideal: (%d - %.0f) / %.0f = %.2f s; %s%n", allCalls, capacity, rate,
          ideal, throttled.tooManyRequests() == 0 ? "zero 429." : "429s seen: the bucket is not under the quota!");
    }
  }

  /** 3 for 3.0, 2.5 for 2.5: a rate as a person writes it. */
  static String number(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
