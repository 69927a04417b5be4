package io.pixquota.mock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the mock saw per integrator: accepted and refused counts, and the arrival time of every request the quota
 * accepted, from which the largest number accepted in any window of the policy's length is computed: the judge of
 * whether a client stayed inside the quota. Each event also keeps its status and the caller's {@code X-Replica-Id}
 * header, for timelines.
 */
final class Audit {
  private final Map<String, Log> logs = new ConcurrentHashMap<>();

  /** One request that reached the quota: when (nanoTime), the status answered, and which replica sent it. */
  record Event(long nanos, int status, String replica) {}

  private static final class Log {
    final List<Event> events = new ArrayList<>();
    long accepted;
    long refused;

    synchronized void add(Event e, boolean accepted) {
      events.add(e);
      if (accepted) {
        this.accepted++;
      } else {
        refused++;
      }
    }

    synchronized Map<String, Object> stats(long windowNanos, long originNanos, boolean withEvents) {
      long[] sorted = events.stream().filter(e -> e.status() != 429).mapToLong(Event::nanos).toArray();
      Arrays.sort(sorted);
      int best = 0;
      int end = 0;
      for (int start = 0; start < sorted.length; start++) {
        // window [t, t + W): a request exactly W later belongs to the next window, as for the provider's limiter
        while (end < sorted.length && sorted[end] < sorted[start] + windowNanos) {
          end++;
        }
        best = Math.max(best, end - start);
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("accepted", accepted);
      out.put("refused", refused);
      out.put("maxInWindow", best);
      if (withEvents) {
        List<Map<String, Object>> list = new ArrayList<>(events.size());
        for (Event e : events) {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("atMicros", (e.nanos() - originNanos) / 1000);
          m.put("status", e.status());
          m.put("replica", e.replica());
          list.add(m);
        }
        out.put("events", list);
      }
      return out;
    }
  }

  void record(String integrator, long nanos, int status, String replica, boolean accepted) {
    logs.computeIfAbsent(integrator, k -> new Log()).add(new Event(nanos, status, replica), accepted);
  }

  Map<String, Object> stats(String integrator, long windowNanos, long originNanos, boolean withEvents) {
    Log log = logs.get(integrator);
    return (log == null ? new Log() : log).stats(windowNanos, originNanos, withEvents);
  }

  Iterable<String> integrators() {
    return logs.keySet();
  }

  void reset() {
    logs.clear();
  }
}
