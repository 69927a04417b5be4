package io.pixquota.bench;

import io.pixquota.bench.EnduranceFaults.Fault;
import io.pixquota.bench.EnduranceFleet.Sample;
import io.pixquota.harness.ForeignConsumer;
import io.pixquota.harness.RefusalBound;
import io.pixquota.mock.MockBacen;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The provider's own counts in {@code bench endurance}: API Pix's accepted requests and 429s, DICT's 429s (the mock
 * BACEN), the SPI judge's most in flight at once and the requests it saw over its cap; and the checks on them: 0 over
 * the cap ever, each fault's 429s within its documented bound, and outside a fault none while the calls' jitter stays
 * within the plan's J (beyond it, what the jitter measured allows).
 */
final class EnduranceJudges {
  private static final String INTEGRATOR = "demo";
  /**
   * DICT's 429s a move to a smaller category may cost each replica: the first on the participant's bucket, which
   * makes it read DICT's policies again, and one lookup in flight while it reads.
   */
  static final int DICT_RESIZE_PER_REPLICA = 2;

  private final MockBacen bacen;
  private final MockBacen spi;
  private final long startNanos;

  EnduranceJudges(MockBacen bacen, MockBacen spi, long startNanos) {
    this.bacen = bacen;
    this.spi = spi;
    this.startNanos = startNanos;
  }

  Map<String, Object> sample() {
    Map<String, Object> pix = bacen.stats(INTEGRATOR, false);
    Map<String, Object> cap = spi.inFlightStats(INTEGRATOR);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("pixAccepted", pix.get("accepted"));
    m.put("pix429", pix.get("refused"));
    m.put("spiMostInFlight", cap.get("mostSeen"));
    m.put("spiOverCap", cap.get("refused"));
    m.put("spiAccepted", spi.stats(INTEGRATOR, false).get("accepted"));
    m.put("dict429", dict429());
    return m;
  }

  /**
   * The quota's 429s outside any fault: none while every call reached the provider within the plan's J of its slot
   * (8 + 9 J <= 10: J 222 ms); beyond it, {@link RefusalBound} says how many the jitter measured then allows. Each
   * 429 is judged with the jitter the replicas measured over the 2 minutes before their next sample, and the 429s
   * within a minute of it.
   */
  static void outside(EnduranceChecks checks, List<Long> outside, List<Sample> samples) {
    String worst = "0";
    long deficit = Long.MIN_VALUE;
    for (long at : outside) {
      double jitterMs = jitterAfter(samples, at);
      long allowed = RefusalBound.allowed(10, 10, 8, EnduranceFaults.RATE, jitterMs / 1000);
      long near = outside.stream().filter(t -> Math.abs(t - at) <= 60_000).count();
      if (near - allowed > deficit) {
        deficit = near - allowed;
        worst = String.format(Locale.ROOT, "%d (the worst at %.0f s: %d within a minute, the replicas' jitter then "
            + "%.0f ms allows %d)", outside.size(), at / 1e3, near, jitterMs, allowed);
      }
    }
    checks.check("API Pix 429s outside a fault", worst, deficit <= 0);
  }

  /** The largest lateness plus answer time any replica reported at its first sample at or after {@code atMs}. */
  private static double jitterAfter(List<Sample> samples, long atMs) {
    Map<String, Double> first = new LinkedHashMap<>();
    for (Sample s : samples) {
      if (s.atMs() >= atMs) {
        first.putIfAbsent(s.replica() + "/" + s.incarnation(), s.values().path("pixLatenessMaxMs").asDouble()
            + s.values().path("pixAnswerMaxMs").asDouble());
      }
    }
    return first.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

  /** The DICT 429s at the last census before {@code atMs}, or the first after it. */
  private static long dict429At(List<Map<String, Object>> series, long atMs, boolean after) {
    long n = 0;
    for (Map<String, Object> row : series) {
      long at = ((Number) row.get("atMs")).longValue();
      if (after ? at >= atMs : at < atMs) {
        n = ((Number) row.get("dict429")).longValue();
        if (after) {
          return n;
        }
      }
    }
    return n;
  }

  @SuppressWarnings("unchecked")
  private long dict429() {
    Map<String, Map<String, Long>> policies = (Map<String, Map<String, Long>>) bacen.dictStats().get("policies");
    return policies.values().stream().mapToLong(p -> ((Number) p.get("refused")).longValue()).sum();
  }

  /** The judges' checks, at the end of the run. */
  @SuppressWarnings("unchecked")
  void check(EnduranceChecks checks, EnduranceFaults faults, List<Map<String, Object>> series, List<Sample> samples,
      int replicas) {
    Map<String, Object> cap = spi.inFlightStats(INTEGRATOR);
    long over = ((Number) cap.get("refused")).longValue();
    checks.check("SPI judge: requests over the cap of " + cap.get("max"), over + " (most in flight at once: "
        + cap.get("mostSeen") + ")", over == 0);
    Map<Fault, Integer> perFault = new LinkedHashMap<>();
    Map<Fault, Long> acceptedIn = new LinkedHashMap<>();
    List<Long> outside = new ArrayList<>();
    long origin = bacen.originNanoTime();
    long foreign429 = 0;
    for (Map<String, Object> e : (List<Map<String, Object>>) bacen.stats(INTEGRATOR, true).get("events")) {
      if (ForeignConsumer.ID.equals(e.get("replica"))) { // the foreign system's own 429s are not ours
        foreign429 += ((Number) e.get("status")).intValue() == 429 ? 1 : 0;
        continue;
      }
      long atMs = (origin + ((Number) e.get("atMicros")).longValue() * 1000 - startNanos) / 1_000_000;
      Fault f = faults.at(atMs);
      if (((Number) e.get("status")).intValue() != 429) {
        if (f != null) {
          acceptedIn.merge(f, 1L, Long::sum);
        }
      } else if (f == null) {
        outside.add(atMs);
      } else {
        perFault.merge(f, 1, Integer::sum);
      }
    }
    outside(checks, outside, samples);
    for (Fault f : faults.done()) {
      int n = perFault.getOrDefault(f, 0);
      long allowed = f.kind().pix429Allowed(acceptedIn.getOrDefault(f, 0L));
      checks.check("API Pix 429s, " + f, n + " (bound " + allowed + (f.kind() == EnduranceFaults.Kind.FOREIGN
          ? "; the foreign system's own: " + foreign429 + " in all" : "") + ")", n <= allowed);
    }
    long dictOutside = 0;
    for (int i = 1; i < series.size(); i++) {
      long grew = ((Number) series.get(i).get("dict429")).longValue()
          - ((Number) series.get(i - 1).get("dict429")).longValue();
      if (grew > 0 && series.get(i).get("fault") == null && series.get(i - 1).get("fault") == null) {
        dictOutside += grew;
      }
    }
    checks.check("DICT 429s outside a fault", dictOutside + " (all: " + dict429() + ")", dictOutside == 0);
    for (Fault f : faults.done()) {
      if (f.kind() == EnduranceFaults.Kind.DICT_RESIZE) {
        long grew = dict429At(series, f.endMs() + Fault.SETTLE_MS, true) - dict429At(series, f.startMs(), false);
        checks.check("DICT 429s, " + f, grew + " (bound " + DICT_RESIZE_PER_REPLICA + " per replica: "
            + DICT_RESIZE_PER_REPLICA * replicas + ")", grew <= DICT_RESIZE_PER_REPLICA * replicas);
      }
    }
  }
}
