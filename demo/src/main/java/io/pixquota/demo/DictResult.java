package io.pixquota.demo;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one run of the DICT scenario measured: honest lookups by outcome, the scanner's by outcome, the 429s DICT gave
 * per policy (its own audit), the mirror's round trips per lookup, and DICT's participant bucket over time.
 */
final class DictResult {
  final String name;
  private final Map<String, LongAdder> honest = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> scanner = new ConcurrentHashMap<>();
  private Map<String, Long> providerRefused = Map.of();
  private List<double[]> samples = List.of();
  private double seconds;
  private double roundTrips;
  private double mirrorLookups;

  DictResult(String name) {
    this.name = name;
  }

  void countHonest(String outcome) {
    honest.computeIfAbsent(outcome, k -> new LongAdder()).increment();
  }

  void countScanner(String outcome) {
    scanner.computeIfAbsent(outcome, k -> new LongAdder()).increment();
  }

  void samples(List<double[]> s) {
    this.samples = s;
  }

  void seconds(double s) {
    this.seconds = s;
  }

  /** DICT's own count of 429s, per policy that refused. */
  void providerRefused(Map<String, Long> byPolicy) {
    this.providerRefused = new TreeMap<>(byPolicy);
  }

  void roundTrips(MeterRegistry registry) {
    for (String kind : new String[] {"booking", "flush"}) { // a lookup's own; redeems are the payments'
      roundTrips += registry.get("bacen.dict.mirror.round.trips").tag("kind", kind).counter().count();
    }
    mirrorLookups += registry.find("bacen.dict.lookups").counters().stream().mapToDouble(c -> c.count()).sum()
        - registry.find("bacen.dict.lookups").tag("outcome", "not_found_cached").counters().stream()
            .mapToDouble(c -> c.count()).sum();
  }

  long honest(String... outcomes) {
    long n = 0;
    for (String o : outcomes) {
      LongAdder a = honest.get(o);
      n += a == null ? 0 : a.sum();
    }
    return n;
  }

  long honestRefused() {
    return honest.entrySet().stream().filter(e -> !e.getKey().equals("200")).mapToLong(e -> e.getValue().sum()).sum();
  }

  long honestTotal() {
    return honest.values().stream().mapToLong(LongAdder::sum).sum();
  }

  long scanner(String outcome) {
    LongAdder a = scanner.get(outcome);
    return a == null ? 0 : a.sum();
  }

  /** Scanner lookups that reached DICT (answered 200, 404 or 429). */
  long scannerSent() {
    return scanner.entrySet().stream().filter(e -> e.getKey().matches("200|404|429.*"))
        .mapToLong(e -> e.getValue().sum()).sum();
  }

  /** 429s DICT gave, whatever the policy. */
  long providerRefusals() {
    return honest.entrySet().stream().filter(e -> e.getKey().startsWith("429")).mapToLong(e -> e.getValue().sum())
        .sum() + scanner.entrySet().stream().filter(e -> e.getKey().startsWith("429"))
        .mapToLong(e -> e.getValue().sum()).sum();
  }

  Map<String, Long> providerRefusedByPolicy() {
    return providerRefused;
  }

  double roundTripsPerLookup() {
    return mirrorLookups == 0 ? 0 : roundTrips / mirrorLookups;
  }

  List<double[]> samples() {
    return samples;
  }

  double seconds() {
    return seconds;
  }

  double participantMin() {
    return samples.stream().mapToDouble(s -> s[1]).min().orElse(Double.NaN);
  }

  Map<String, Object> toJson() {
    Map<String, Object> refused = new TreeMap<>();
    honest.forEach((k, v) -> {
      if (!k.equals("200")) {
        refused.put(k, v.sum());
      }
    });
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("lookups", honestTotal());
    h.put("served", honest("200"));
    h.put("refused", refused);
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("sent", scannerSent());
    s.put("notFound", scanner("404"));
    s.put("refusedLocally", scanner("refused locally"));
    s.put("providerRefused", scanner.entrySet().stream().filter(e -> e.getKey().startsWith("429"))
        .mapToLong(e -> e.getValue().sum()).sum());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("honest", h);
    out.put("scanner", s);
    out.put("provider429ByPolicy", providerRefused);
    out.put("participantTokensMin", participantMin());
    if (mirrorLookups > 0) {
      out.put("mirrorRoundTripsPerLookup", Math.round(roundTripsPerLookup() * 1000) / 1000.0);
    }
    out.put("seconds", Math.round(seconds * 10) / 10.0);
    return out;
  }
}
