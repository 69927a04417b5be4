package io.pixquota.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one mode of the demo measured, over every replica. */
final class ModeResult {
  final String mode;
  final Map<String, List<CallRecord>> callsByReplica = new LinkedHashMap<>();
  List<Map<String, Object>> providerEvents = new ArrayList<>();
  long providerMaxInWindow;
  long redisCommands = -1;

  ModeResult(String mode) {
    this.mode = mode;
  }

  List<CallRecord> all() {
    List<CallRecord> all = new ArrayList<>();
    callsByReplica.values().forEach(all::addAll);
    return all;
  }

  long served() {
    return all().stream().filter(c -> c.outcome().equals("served")).count();
  }

  long tooManyRequests() {
    return all().stream().filter(c -> c.status() == 429).count();
  }

  long otherFailures() {
    return all().size() - served() - tooManyRequests();
  }

  double elapsedMs() {
    return all().stream().mapToDouble(CallRecord::doneAtMs).max().orElse(0);
  }

  double waitPercentileMs(double p) {
    double[] waits = all().stream().mapToDouble(CallRecord::waitMs).toArray();
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

  Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("served", served());
    m.put("tooManyRequests", tooManyRequests());
    m.put("otherFailures", otherFailures());
    m.put("elapsedMs", Math.round(elapsedMs()));
    m.put("waitP50Ms", Math.round(waitPercentileMs(50)));
    m.put("waitP99Ms", Math.round(waitPercentileMs(99)));
    m.put("redisRoundTripsPerCall", Math.round(redisRoundTripsPerCall() * 1000) / 1000.0);
    m.put("providerMaxInWindow", providerMaxInWindow);
    return m;
  }
}
