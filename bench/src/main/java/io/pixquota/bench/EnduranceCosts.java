package io.pixquota.bench;

import io.pixquota.bench.EnduranceFaults.Fault;
import io.pixquota.bench.EnduranceFleet.Sample;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What each fault of {@code bench endurance} cost the fleet: the outcomes other than served that its callers met
 * while it ran and settled (the replicas' counts at the first sample after the window, less those at the last
 * sample before it, over every incarnation alive at either end), by {@code kind:outcome}.
 */
final class EnduranceCosts {
  private EnduranceCosts() {}

  /** Each fault's cost, in the order they ran; the replicas sample every {@code sampleMs}. */
  static Map<Fault, Map<String, Long>> of(List<Fault> faults, List<Sample> samples, long sampleMs) {
    Map<Fault, Map<String, Long>> out = new LinkedHashMap<>();
    for (Fault f : faults) {
      Map<String, Long> before = counts(samples, f.startMs(), false, 0);
      Map<String, Long> after = counts(samples, f.endMs() + Fault.SETTLE_MS, true, 2 * sampleMs);
      Map<String, Long> cost = new TreeMap<>();
      after.forEach((key, n) -> {
        long grew = n - before.getOrDefault(key, 0L);
        if (grew > 0 && !key.endsWith(":served")) {
          cost.merge(key.substring(key.indexOf('|') + 1), grew, Long::sum);
        }
      });
      out.put(f, cost);
    }
    return out;
  }

  /**
   * Each incarnation's counts at its last sample before {@code atMs}, or its first after it, if that comes within
   * {@code nextMs}: an incarnation started later was not alive in the window, and its counts are not the window's.
   */
  private static Map<String, Long> counts(List<Sample> samples, long atMs, boolean after, long nextMs) {
    Map<String, Sample> chosen = new LinkedHashMap<>();
    for (Sample s : samples) {
      String who = s.replica() + "/" + s.incarnation();
      boolean first = !chosen.containsKey(who) || chosen.get(who).atMs() > s.atMs();
      if (after ? s.atMs() >= atMs && s.atMs() <= atMs + nextMs && first : s.atMs() < atMs
          && (!chosen.containsKey(who) || chosen.get(who).atMs() < s.atMs())) {
        chosen.put(who, s);
      }
    }
    Map<String, Long> out = new TreeMap<>();
    chosen.forEach((who, s) -> s.values().path("outcomes").properties().forEach(e ->
        out.put(who + "|" + e.getKey(), e.getValue().asLong())));
    return out;
  }

  /** A cost in words: "pix-person:refused-BucketUnavailable 3, spi:refused-ThrottleRefused 12", or "none". */
  static String describe(Map<String, Long> cost) {
    return cost.isEmpty() ? "none" : String.join(", ", cost.entrySet().stream().map(e -> e.getKey() + " "
        + e.getValue()).toList());
  }
}
