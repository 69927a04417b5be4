package io.pixquota.bench;

import io.pixquota.bench.EnduranceFaults.Fault;
import io.pixquota.mock.MockBacen;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The provider's own counts in {@code bench endurance}: API Pix's accepted requests and 429s, DICT's 429s (the mock
 * BACEN), the SPI judge's most in flight at once and the requests it saw over its cap; and the checks on them: 0 over
 * the cap ever, each fault's 429s within its documented bound, and none outside a fault.
 */
final class EnduranceJudges {
  private static final String INTEGRATOR = "demo";

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

  @SuppressWarnings("unchecked")
  private long dict429() {
    Map<String, Map<String, Long>> policies = (Map<String, Map<String, Long>>) bacen.dictStats().get("policies");
    return policies.values().stream().mapToLong(p -> ((Number) p.get("refused")).longValue()).sum();
  }

  /** The judges' checks, at the end of the run. */
  @SuppressWarnings("unchecked")
  void check(EnduranceChecks checks, EnduranceFaults faults, List<Map<String, Object>> series, int replicas) {
    Map<String, Object> cap = spi.inFlightStats(INTEGRATOR);
    long over = ((Number) cap.get("refused")).longValue();
    checks.check("SPI judge: requests over the cap of " + cap.get("max"), over + " (most in flight at once: "
        + cap.get("mostSeen") + ")", over == 0);
    Map<EnduranceFaults.Kind, Integer> byFault = new EnumMap<>(EnduranceFaults.Kind.class);
    Map<Fault, Integer> perFault = new LinkedHashMap<>();
    int outside = 0;
    long origin = bacen.originNanoTime();
    for (Map<String, Object> e : (List<Map<String, Object>>) bacen.stats(INTEGRATOR, true).get("events")) {
      if (((Number) e.get("status")).intValue() != 429) {
        continue;
      }
      long atMs = (origin + ((Number) e.get("atMicros")).longValue() * 1000 - startNanos) / 1_000_000;
      Fault f = faults.at(atMs);
      if (f == null) {
        outside++;
      } else {
        perFault.merge(f, 1, Integer::sum);
        byFault.merge(f.kind(), 1, Integer::sum);
      }
    }
    checks.check("API Pix 429s outside a fault", Integer.toString(outside), outside == 0);
    for (Fault f : faults.done()) {
      int n = perFault.getOrDefault(f, 0);
      checks.check("API Pix 429s, " + f, n + " (bound " + f.kind().pix429Allowed + ")",
          n <= f.kind().pix429Allowed);
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
  }
}
