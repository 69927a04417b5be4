package io.pixquota.bench;

import java.util.Map;
import java.net.URI;
import io.pixquota.mock.MockBacen;
import io.pixquota.harness.Sleep;
import io.pixquota.harness.CommandCounter;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** The arithmetic behind bench peers' figures, from one workload's records. */
final class PeersFigures {
  private PeersFigures() {}

  /** What one workload produced: per-call records, the provider's audit, and the Redis commands counted. */
  record Phase(long startNanos, List<long[]> calls, List<long[]> events, long accepted, long refused, long errors,
      long commands, long pings) {}

  /** First to last arrival at the provider, any answer, in seconds. */
  static double span(Phase p) {
    long first = p.events.stream().mapToLong(e -> e[0]).min().orElse(0);
    long last = p.events.stream().mapToLong(e -> e[0]).max().orElse(0);
    return (last - first) / 1e9;
  }

  /** The burst's start (GO) to the last answer a replica received, in seconds. */
  static double lastAnswer(Phase p) {
    return (p.calls.stream().mapToLong(c -> c[3]).max().orElse(p.startNanos) - p.startNanos) / 1e9;
  }

  /** Redis commands (keep-alive PINGs excepted) per call that reached the provider; NaN without Redis. */
  static double perAdmitted(Phase p) {
    long admitted = p.accepted + p.refused;
    return admitted == 0 ? Double.NaN : (double) (p.commands - p.pings) / admitted;
  }

  /**
   * Share of admissions that went to the earliest-arrived caller among those waiting at that moment (a caller that
   * arrived later than the admission does not count as waiting).
   */
  static double inOrderShare(Phase p) {
    List<long[]> byAdmission = new ArrayList<>(p.calls);
    byAdmission.sort((a, b) -> Long.compare(a[1], b[1]));
    TreeMap<Long, Integer> waiting = new TreeMap<>(); // arrival -> count, not yet admitted
    List<long[]> byArrival = new ArrayList<>(p.calls);
    byArrival.sort((a, b) -> Long.compare(a[0], b[0]));
    int next = 0;
    int inOrder = 0;
    for (long[] c : byAdmission) {
      while (next < byArrival.size() && byArrival.get(next)[0] <= c[1]) {
        waiting.merge(byArrival.get(next)[0], 1, Integer::sum);
        next++;
      }
      if (!waiting.isEmpty() && waiting.firstKey() == c[0]) {
        inOrder++;
      }
      waiting.computeIfPresent(c[0], (k, v) -> v == 1 ? null : v - 1);
    }
    return p.calls.isEmpty() ? Double.NaN : (double) inOrder / p.calls.size();
  }

  /** One phase of a fleet of peer replicas on the mock: what each replica saw, what the mock and Redis counted. */
  static Phase phase(PeerFleet reps, MockBacen mock, URI redis, String kind, int callers, long ms)
      throws Exception {
    mock.reset();
    long goMs = System.currentTimeMillis() + 300;
    long startNanos = Sleep.nanoTimeAt(goMs);
    List<long[]> calls = new ArrayList<>();
    long errors = 0;
    try (CommandCounter counter = new CommandCounter(redis, goMs)) {
      for (JsonNode result : reps.run(goMs, kind, callers, ms)) {
        for (JsonNode c : result.get("calls")) {
          calls.add(new long[] {c.get(0).asLong(), c.get(1).asLong(), c.get(2).asLong(), c.get(3).asLong(),
              c.get(4).asLong()});
        }
        errors += result.get("statuses").path("0").asLong()
            + result.get("statuses").path(Integer.toString(PeerReplica.THROTTLED)).asLong();
      }
      counter.settle();
      Map<String, Object> stats = mock.stats("demo", true);
      long origin = mock.originNanoTime();
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> raw = (List<Map<String, Object>>) stats.get("events");
      List<long[]> events = new ArrayList<>(raw.size());
      for (Map<String, Object> e : raw) {
        events.add(new long[] {origin + ((Number) e.get("atMicros")).longValue() * 1000,
            ((Number) e.get("status")).longValue()});
      }
      return new Phase(startNanos, calls, events, ((Number) stats.get("accepted")).longValue(),
          ((Number) stats.get("refused")).longValue(), errors, counter.commands(), counter.pingCommands());
    }
  }
}
