package io.pixquota.demo;

import io.pixquota.harness.ForeignConsumer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** What one mode of the demo measured, over every replica. */
final class ModeResult {
  final String mode;
  final Map<String, List<CallRecord>> callsByReplica = new LinkedHashMap<>();
  List<Map<String, Object>> providerEvents = new ArrayList<>();
  long providerMaxInWindow;
  /** The most calls the provider had in flight at once (its audit), or -1. */
  long providerMostInFlight = -1;
  /** How long each answer of the provider took (the mock's latency), ms. */
  long latencyMs;
  /** The provider's cap on calls in flight (the mock's), or 0. */
  long inFlightCap;
  /** The replicas' max wait, as they ran (shorter than their call timeout when one was given), in ms. */
  long replicaMaxWaitMs;
  long providerOriginNanoTime;
  final Map<String, Long> replicaStartNanoTime = new LinkedHashMap<>();
  long redisCommands = -1;
  /** Why the Redis count missed commands (a node died during the run), or null when it saw them all. */
  String redisCountPartial;
  /** Per replica: the effective rate it saw, {@code [ms after its start, per second]} at each change. */
  final Map<String, List<double[]>> effectiveRate = new LinkedHashMap<>();
  /**
   * Per replica, what its machine did to its timing: {@code schedulingLagMaxMs} (how late its threads woke),
   * {@code latenessMaxMs} (how late its calls left after their slots) and {@code rebooked} (calls that woke past the
   * late limit and took a fresh slot). A wall-clock bound on a wait is the scenario's figure plus these.
   */
  final Map<String, Map<String, Number>> timingByReplica = new LinkedHashMap<>();
  /** Whether a foreign system called the provider on the same credentials during the run. */
  boolean foreign;
  /**
   * How far after its slot a call reached the provider, at most, over every replica (ms): its lateness (slot to send)
   * plus its answer time (send to answer), as the SDK's meters measured them; what bounds the 429s a run can meet.
   */
  double jitterMaxMs;
  /** Answers whose quota headers the replicas read, by outcome (agreed, lowered, skipped, ignored). */
  final Map<String, Long> quotaHeaders = new TreeMap<>();

  ModeResult(String mode) {
    this.mode = mode;
  }

  List<CallRecord> all() {
    List<CallRecord> all = new ArrayList<>();
    callsByReplica.values().forEach(all::addAll);
    return all;
  }

  long served() {
    return count(CallRecord.SERVED);
  }

  /** Calls whose outcome is {@code outcome}. */
  long count(String outcome) {
    return all().stream().filter(c -> c.outcome().equals(outcome)).count();
  }

  long tooManyRequests() {
    return all().stream().filter(c -> c.status() == 429).count();
  }

  /** Every failure but 429: refused after the max wait, bucket unavailable, transport, provider 5xx, other. */
  long otherFailures() {
    return all().size() - served() - tooManyRequests();
  }

  /**
   * What to do when calls were refused after the max wait: how long the last call of the burst needed to wait for
   * its slot, and the option that allows it. Null when none was refused.
   */
  String maxWaitHint(int allCalls, double capacity, double rate, long maxWaitMs, boolean burst) {
    long refused = count(CallRecord.REFUSED_MAX_WAIT);
    if (refused == 0) {
      return null;
    }
    long waited = replicaMaxWaitMs > 0 ? replicaMaxWaitMs : maxWaitMs;
    if (inFlightCap > 0) {
      return String.format(Locale.ROOT, "%s: %d %s refused after waiting %.1f s for a permit: the provider takes %d "
          + "calls at once and answers each in %d ms, and a call that timed out at the client keeps its permit "
          + "while the provider may still be working on it.", mode, refused, refused == 1 ? "call was" : "calls were",
          waited / 1000.0, inFlightCap, latencyMs);
    }
    String what = String.format(Locale.ROOT, "%s: %d %s refused after waiting --max-wait %.1f s for a slot",
        mode, refused, refused == 1 ? "call was" : "calls were", waited / 1000.0);
    if (!burst) {
      return what + ": the callers asked faster than the bucket lets calls through. Run again with a longer "
          + "--max-wait (ms), or fewer --calls.";
    }
    double neededS = Math.max(0, (allCalls - capacity) / rate);
    long suggestMs = (long) Math.ceil(neededS + 1) * 1000;
    return String.format(Locale.ROOT, "%s: %d calls through a bucket of burst %.0f at %s per second need (%d - %.0f) "
        + "/ %s = %.1f s for the last one. Run again with --max-wait %d (ms) or more, or fewer --replicas or "
        + "--calls.", what, allCalls, capacity, ResultTable.number(rate), allCalls, capacity,
        ResultTable.number(rate), neededS, suggestMs);
  }

  /** Calls of the foreign system the provider saw. */
  long foreignCalls() {
    return providerEvents.stream().filter(ModeResult::isForeign).count();
  }

  /** Calls of the foreign system the provider refused with 429. */
  long foreignTooManyRequests() {
    return providerEvents.stream().filter(e -> isForeign(e) && ((Number) e.get("status")).intValue() == 429)
        .count();
  }

  static boolean isForeign(Map<String, Object> event) {
    return ForeignConsumer.ID.equals(event.get("replica"));
  }

  /** The lowest effective rate any replica saw; 0 when none was sampled. */
  double effectiveRateLowest() {
    return effectiveRate.values().stream().flatMap(List::stream).mapToDouble(row -> row[1]).min().orElse(0);
  }

  /**
   * The share of what the foreign system left of the provider's quota ({@code capacity} plus {@code rate} per second
   * over the run) that this mode's calls were served.
   */
  double quotaLeftUsed(double capacity, double rate) {
    double left = capacity + rate * elapsedMs() / 1000 - (foreignCalls() - foreignTooManyRequests());
    return left <= 0 ? 0 : served() / left;
  }

  double elapsedMs() {
    return all().stream().mapToDouble(CallRecord::doneAtMs).max().orElse(0);
  }

  /** When the first call left its replica, ms after the burst's start: the first booking had come back by then. */
  double firstLeftAtMs() {
    return all().stream().mapToDouble(CallRecord::leftAtMs).min().orElse(0);
  }

  double waitPercentileMs(double p) {
    return percentile(all().stream().mapToDouble(CallRecord::waitMs).toArray(), p);
  }

  /** The wait percentile of one replica's calls ({@code r1}, {@code r2}...); 0 when it made none. */
  double waitPercentileMs(String replica, double p) {
    return percentile(callsByReplica.getOrDefault(replica, List.of()).stream().mapToDouble(CallRecord::waitMs)
        .toArray(), p);
  }

  /** One replica's calls served per second over {@code seconds}. */
  double servedPerSecond(String replica, double seconds) {
    return callsByReplica.getOrDefault(replica, List.of()).stream().filter(c -> c.outcome().equals(CallRecord.SERVED))
        .count() / seconds;
  }

  private static double percentile(double[] waits, double p) {
    if (waits.length == 0) {
      return 0;
    }
    Arrays.sort(waits);
    int rank = (int) Math.ceil(p / 100.0 * waits.length);
    return waits[Math.max(0, Math.min(waits.length - 1, rank - 1))];
  }

  /** Redis commands sent during the burst per call; 0 when the mode does not use Redis. */
  double redisRoundTripsPerCall() {
    return redisCommands <= 0 || all().isEmpty() ? 0 : (double) redisCommands / all().size();
  }

  /**
   * When each call left its replica and when the provider saw it, on one clock (System.nanoTime is the machine's
   * monotonic clock, shared by every process): what to read when a 429 needs explaining.
   */
  String timeline(int max) {
    List<double[]> left = new ArrayList<>();
    callsByReplica.forEach((replica, calls) -> {
      long start = replicaStartNanoTime.getOrDefault(replica, 0L);
      for (CallRecord c : calls) {
        left.add(new double[] {start / 1e6 + c.leftAtMs(), c.waitMs(), Double.parseDouble(replica.substring(1))});
      }
    });
    List<double[]> arrived = new ArrayList<>();
    for (Map<String, Object> e : providerEvents) {
      arrived.add(new double[] {providerOriginNanoTime / 1e6 + ((Number) e.get("atMicros")).longValue() / 1e3,
          ((Number) e.get("status")).intValue()});
    }
    left.sort((a, b) -> Double.compare(a[0], b[0]));
    arrived.sort((a, b) -> Double.compare(a[0], b[0]));
    double t0 = Math.min(left.isEmpty() ? Double.MAX_VALUE : left.get(0)[0],
        arrived.isEmpty() ? Double.MAX_VALUE : arrived.get(0)[0]);
    StringBuilder sb = new StringBuilder(mode + " left (ms/replica/wait):");
    left.stream().limit(max).forEach(l -> sb.append(String.format(Locale.ROOT, " %.0f/r%.0f/w%.0f",
        l[0] - t0, l[2], l[1])));
    sb.append("\n").append(mode).append(" arrived (ms, X = 429):");
    arrived.stream().limit(max).forEach(a -> sb.append(String.format(Locale.ROOT, " %.0f%s", a[0] - t0,
        a[1] == 429 ? "X" : "")));
    return sb.toString();
  }

  /**
   * Calls served per second at the provider: served calls over the time from the first one's arrival to the last
   * one's answer (its arrival plus the provider's latency).
   */
  /**
   * The steady state: calls the provider answered after the run's first second (arrival + the mock's latency), over
   * the time from that second to the last answer; 0 when the run is too short to have one.
   */
  double steadyPerSecondAtProvider() {
    List<Double> at = servedArrivalsMicros();
    double from = at.stream().mapToDouble(Double::doubleValue).min().orElse(0) + 1e6;
    double to = at.stream().mapToDouble(Double::doubleValue).max().orElse(0) + latencyMs * 1000.0;
    long answered = at.stream().filter(t -> t + latencyMs * 1000.0 >= from).count();
    return to - from < 1e6 ? 0 : answered / ((to - from) / 1e6);
  }

  /** When the provider saw each call it answered 200, in its microseconds. */
  private List<Double> servedArrivalsMicros() {
    List<Double> at = new ArrayList<>();
    for (Map<String, Object> e : providerEvents) {
      Object status = e.get("status");
      if (status instanceof Number n && n.intValue() == 200 && e.get("atMicros") instanceof Number t) {
        at.add(t.doubleValue());
      }
    }
    return at;
  }

  double servedPerSecondAtProvider() {
    List<Double> at = servedArrivalsMicros();
    if (at.size() < 2) {
      return 0;
    }
    double first = at.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    double last = at.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    return at.size() / ((last - first) / 1e6 + latencyMs / 1000.0);
  }

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("served", served());
    m.put("tooManyRequests", tooManyRequests());
    m.put("otherFailures", otherFailures());
    Map<String, Object> failures = new LinkedHashMap<>();
    CallRecord.FAILURES.forEach(kind -> failures.put(kind, count(kind)));
    m.put("failures", failures);
    m.put("elapsedMs", Math.round(elapsedMs()));
    m.put("firstLeftAtMs", Math.round(firstLeftAtMs() * 10) / 10.0);
    m.put("waitP50Ms", Math.round(waitPercentileMs(50)));
    m.put("waitP99Ms", Math.round(waitPercentileMs(99)));
    m.put("redisRoundTripsPerCall", Math.round(redisRoundTripsPerCall() * 1000) / 1000.0);
    if (redisCountPartial != null) {
      m.put("redisCountPartial", redisCountPartial);
    }
    m.put("providerMaxInWindow", providerMaxInWindow);
    m.put("providerMostInFlight", providerMostInFlight);
    m.put("servedPerSecondAtProvider", Math.round(servedPerSecondAtProvider() * 100) / 100.0);
    m.put("steadyPerSecondAtProvider", Math.round(steadyPerSecondAtProvider() * 100) / 100.0);
    m.put("jitterMaxMs", Math.round(jitterMaxMs * 10) / 10.0);
    m.put("quotaHeaders", quotaHeaders);
    Map<String, Object> byReplica = new LinkedHashMap<>();
    callsByReplica.keySet().forEach(r -> {
      Map<String, Object> one = new LinkedHashMap<>(Map.of("served", servedPerSecond(r, 1),
          "waitP50Ms", Math.round(waitPercentileMs(r, 50)), "waitP99Ms", Math.round(waitPercentileMs(r, 99)),
          "waitMaxMs", Math.round(waitPercentileMs(r, 100))));
      one.putAll(timingByReplica.getOrDefault(r, Map.of()));
      byReplica.put(r, one);
    });
    m.put("byReplica", byReplica);
    if (foreign) {
      m.put("foreignCalls", foreignCalls());
      m.put("foreignTooManyRequests", foreignTooManyRequests());
      m.put("effectiveRateLowest", Math.round(effectiveRateLowest() * 1000) / 1000.0);
      m.put("effectiveRate", effectiveRate);
    }
    return m;
  }
}
