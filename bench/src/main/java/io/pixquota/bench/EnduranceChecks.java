package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.bench.EnduranceFleet.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The checks {@code bench endurance} applies to its own run: per replica series (an incarnation that ran past the
 * warm-up), heap after GC growing by less than 1 MiB an hour (a least-squares slope, checked on runs of 30 minutes or
 * more, shown on shorter ones), threads, file descriptors and connections to Redis ending within 5 of where they
 * were after the warm-up, meters constant over the second half of a life in whose first half every kind of fault
 * ran (a replica started again late in the run is not judged on them); Redis's keys
 * within what the settings keep; at the judges, 0 requests over the cap ever and no 429 outside a fault's documented
 * bound.
 */
final class EnduranceChecks {
  /** One check: its name, the figure it read, and whether it passed. */
  record Check(String name, String figure, boolean passed) {
    @Override
    public String toString() {
      return (passed ? "ok    " : "FAILED") + "  " + name + ": " + figure;
    }
  }

  static final double HEAP_SLOPE_MIB_PER_HOUR = 1;
  static final int DRIFT = 5;
  static final long SLOPE_FROM_MINUTES = 30;

  private final List<Check> checks = new ArrayList<>();
  private final long warmUpMs;
  private final long runMs;
  /** The faults that ran: a life's meters are checked when every kind of fault ran, and settled, in its first half. */
  private final List<EnduranceFaults.Fault> faults;

  EnduranceChecks(long warmUpMs, long runMs, List<EnduranceFaults.Fault> faults) {
    this.warmUpMs = warmUpMs;
    this.runMs = runMs;
    this.faults = List.copyOf(faults);
  }

  /** Whether every kind of fault began after {@code fromMs} and settled by {@code byMs}. */
  private boolean everyKindRan(long fromMs, long byMs) {
    return java.util.Arrays.stream(EnduranceFaults.Kind.values()).allMatch(k -> faults.stream().anyMatch(f ->
        f.kind() == k && f.startMs() >= fromMs && f.endMs() + EnduranceFaults.Fault.SETTLE_MS <= byMs));
  }

  void check(String name, String figure, boolean passed) {
    checks.add(new Check(name, figure, passed));
  }

  List<Check> all() {
    return List.copyOf(checks);
  }

  boolean passed() {
    return checks.stream().allMatch(Check::passed);
  }

  /** The replica series: each incarnation's samples after the warm-up (or after its own first minute). */
  void replicas(List<Sample> samples) {
    Map<String, List<Sample>> series = samples.stream().collect(Collectors.groupingBy(
        s -> "replica " + s.replica() + (s.incarnation() == 1 ? "" : " (start " + s.incarnation() + ")"),
        TreeMap::new, Collectors.toList()));
    series.forEach((name, all) -> {
      long from = Math.max(warmUpMs, all.get(0).atMs() + 60_000);
      List<Sample> s = all.stream().filter(x -> x.atMs() >= from).toList();
      if (s.size() < 3) {
        return; // too short a life to say anything of it (a replica started again near the end)
      }
      JsonNode first = s.get(0).values();
      JsonNode last = s.get(s.size() - 1).values();
      double slope = slopeMibPerHour(s);
      boolean long30 = (s.get(s.size() - 1).atMs() - s.get(0).atMs()) >= SLOPE_FROM_MINUTES * 60_000;
      check(name + ", heap after GC", String.format(Locale.ROOT, "%.2f MiB/h (%.2f to %.2f MiB over %.1f min)%s",
          slope, mib(first.get("heapAfterGcBytes")), mib(last.get("heapAfterGcBytes")),
          (s.get(s.size() - 1).atMs() - s.get(0).atMs()) / 60_000.0, long30 ? "" : "; shown, checked from "
              + SLOPE_FROM_MINUTES + " min"), !long30 || slope < HEAP_SLOPE_MIB_PER_HOUR);
      // where it started and ended: the median of the first three samples and of the last three, so that one
      // sample taken while a pool had a thread or a connection more for a moment (OkHttp's dispatcher keeps an idle
      // thread 60 s) is neither
      int k = Math.min(3, s.size() / 2);
      for (String field : List.of("threads", "fds", "redisConnections")) {
        long a = median(s.subList(0, k), field);
        long b = median(s.subList(s.size() - k, s.size()), field);
        check(name + ", " + field, a + " to " + b, Math.abs(b - a) <= DRIFT);
      }
      // a meter appears the first time its tags do (a status, an outcome): a fault's new kind of outcome adds one;
      // a meter per id or payer keeps adding. Over the second half of a life, once every kind of fault ran: constant
      long mid = (s.get(0).atMs() + s.get(s.size() - 1).atMs()) / 2;
      long atMid = s.stream().filter(x -> x.atMs() >= mid).findFirst().orElseThrow().values().get("meters").asLong();
      long end = last.get("meters").asLong();
      boolean judged = everyKindRan(all.get(0).atMs(), mid);
      check(name + ", meters", first.get("meters").asLong() + ", " + atMid + " half way, " + end + " at the end"
          + (judged ? "" : "; shown, checked when every kind of fault ran in its first half"), !judged || atMid == end);
    });
  }

  /** Keys that are neither a DICT payer's nor a credit: the buckets, the pool, DICT's participant buckets, leases. */
  static final long FIXED_KEYS = 20;

  /**
   * Redis's keys, at every census, within what the settings keep: a credit for each lookup answered (kept 1 h, the
   * credit ttl: the whole of a run of an hour), a payer's bucket for each payer answered (an honest payer's, or one
   * of the scanner's ids: kept until full again, 30 days when a found key earned it standing), and a fixed few.
   */
  void keys(List<Map<String, Object>> series, List<Sample> samples, int replicas) {
    long worst = Long.MIN_VALUE;
    String at = "";
    for (Map<String, Object> row : series) {
      @SuppressWarnings("unchecked")
      Map<String, Number> redis = (Map<String, Number>) row.get("redis");
      long keys = redis.get("keys").longValue();
      if (keys < 0) {
        continue; // Redis down at that census
      }
      long t = ((Number) row.get("atMs")).longValue();
      long answered = answeredBy(samples, t, "dict-honest:served") + answeredBy(samples, t, "dict-scanner:served");
      long bound = FIXED_KEYS + EnduranceReplica.HONEST_PAYERS * replicas + 2 * answered;
      if (keys - bound > worst) {
        worst = keys - bound;
        at = String.format(Locale.ROOT, "%d keys at %.0f s against %d (%d lookups answered)", keys, t / 1e3,
            bound, answered);
      }
    }
    check("Redis keys within what the settings keep", at, worst <= 0);
  }

  /** Outcomes counted by every incarnation up to its first sample at or after {@code t} (its counts only grow). */
  private static long answeredBy(List<Sample> samples, long t, String outcome) {
    Map<String, Long> byIncarnation = new TreeMap<>();
    for (Sample s : samples) {
      String k = s.replica() + "/" + s.incarnation();
      if (s.atMs() >= t && byIncarnation.containsKey(k + "!")) {
        continue; // this incarnation's count at t is known
      }
      byIncarnation.put(k, s.values().path("outcomes").path(outcome).asLong());
      if (s.atMs() >= t) {
        byIncarnation.put(k + "!", 0L);
      }
    }
    return byIncarnation.entrySet().stream().filter(e -> !e.getKey().endsWith("!")).mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static long median(List<Sample> s, String field) {
    long[] v = s.stream().mapToLong(x -> x.values().get(field).asLong()).sorted().toArray();
    return v[v.length / 2];
  }

  /** Least-squares slope of the heap after GC against time, in MiB an hour. */
  static double slopeMibPerHour(List<Sample> s) {
    double n = s.size();
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (Sample x : s) {
      double h = x.atMs() / 3_600_000.0;
      double y = mib(x.values().get("heapAfterGcBytes"));
      sx += h;
      sy += y;
      sxx += h * h;
      sxy += h * y;
    }
    double d = n * sxx - sx * sx;
    return d == 0 ? 0 : (n * sxy - sx * sy) / d;
  }

  private static double mib(JsonNode bytes) {
    return bytes.asDouble() / (1024 * 1024);
  }

  long runMs() {
    return runMs;
  }
}
