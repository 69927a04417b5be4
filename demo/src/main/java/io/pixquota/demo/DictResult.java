package io.pixquota.demo;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one run of the DICT scenario measured: lookups by group (payers with standing, new payers, the scanner) and
 * outcome, the 429s DICT gave per policy (its own audit), the mirror's round trips per lookup and per refusal, and
 * DICT's participant bucket over time.
 */
final class DictResult {
  private static final List<String> SENT = List.of("found", "not_found", "provider_refused", "failed");
  private static final List<String> REFUSED = List.of("user_refused", "reserve_refused", "throttled");

  final String name;
  private final Map<String, Map<String, LongAdder>> groups = new ConcurrentHashMap<>();
  private Map<String, Long> providerRefused = Map.of();
  private List<double[]> samples = List.of();
  private double seconds;
  private double roundTrips;
  private double bookings;
  private double sent;
  private double refusals;

  DictResult(String name) {
    this.name = name;
  }

  /** One lookup of a group ("standing", "new", "scanner") ended with {@code outcome}. */
  void record(String group, String outcome) {
    groups.computeIfAbsent(group, k -> new ConcurrentHashMap<>()).computeIfAbsent(outcome, k -> new LongAdder())
        .increment();
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

  /** The meters before the run (the warm-up's lookups), taken off what {@link #roundTrips} reads after it. */
  void roundTripsBefore(MeterRegistry registry) {
    add(registry, -1);
  }

  void roundTrips(MeterRegistry registry) {
    add(registry, 1);
  }

  private void add(MeterRegistry registry, int sign) {
    for (String kind : new String[] {"booking", "flush"}) {
      roundTrips += sign * registry.get("bacen.dict.mirror.round.trips").tag("kind", kind).counter().count();
    }
    bookings += sign * registry.get("bacen.dict.mirror.round.trips").tag("kind", "booking").counter().count();
    sent += sign * outcomes(registry, SENT);
    refusals += sign * outcomes(registry, REFUSED);
  }

  private static double outcomes(MeterRegistry registry, List<String> outcomes) {
    return registry.find("bacen.dict.lookups").counters().stream()
        .filter(c -> outcomes.contains(c.getId().getTag("outcome"))).mapToDouble(Counter::count).sum();
  }

  /** Lookups of {@code group} that ended in any of {@code outcomes}; none given: all of them. */
  long count(String group, String... outcomes) {
    Map<String, LongAdder> g = groups.getOrDefault(group, Map.of());
    if (outcomes.length == 0) {
      return g.values().stream().mapToLong(LongAdder::sum).sum();
    }
    long n = 0;
    for (String o : outcomes) {
      LongAdder a = g.get(o);
      n += a == null ? 0 : a.sum();
    }
    return n;
  }

  /** Lookups of {@code group} whose outcome starts with {@code prefix}. */
  long countStarting(String group, String prefix) {
    return groups.getOrDefault(group, Map.of()).entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(e -> e.getValue().sum()).sum();
  }

  /** Scanner lookups that reached DICT (answered 200, 404 or 429). */
  long scannerSent() {
    return count("scanner", "200", "404") + countStarting("scanner", "429");
  }

  /** 429s DICT gave, whatever the group and policy. */
  long providerRefusals() {
    return countStarting("standing", "429") + countStarting("new", "429") + countStarting("scanner", "429");
  }

  Map<String, Long> providerRefusedByPolicy() {
    return providerRefused;
  }

  double roundTripsPerLookup() {
    double lookups = sent + refusals;
    return lookups == 0 ? 0 : roundTrips / lookups;
  }

  /** Bookings that did not send a lookup (the mirror's refusals it asked Redis for), per refusal. */
  double roundTripsPerRefusal() {
    return refusals == 0 ? 0 : Math.max(0, bookings - sent) / refusals;
  }

  boolean throughMirror() {
    return sent + refusals > 0;
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

  private Map<String, Object> group(String group) {
    Map<String, Object> byOutcome = new TreeMap<>();
    groups.getOrDefault(group, Map.of()).forEach((k, v) -> byOutcome.put(k, v.sum()));
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("lookups", count(group));
    g.put("served", count(group, "200"));
    g.put("outcomes", byOutcome);
    return g;
  }

  Map<String, Object> toJson() {
    Map<String, Object> scanner = group("scanner");
    scanner.put("sent", scannerSent());
    scanner.put("notFound", count("scanner", "404"));
    scanner.put("refusedByMirror", countStarting("scanner", "refused"));
    scanner.put("providerRefused", countStarting("scanner", "429"));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("withStanding", group("standing"));
    out.put("newPayers", group("new"));
    out.put("scanner", scanner);
    out.put("provider429ByPolicy", providerRefused);
    out.put("participantTokensMin", participantMin());
    if (throughMirror()) {
      out.put("mirrorRoundTripsPerLookup", Math.round(roundTripsPerLookup() * 1000) / 1000.0);
      out.put("roundTripsPerRefusal", Math.round(roundTripsPerRefusal() * 10000) / 10000.0);
    }
    out.put("seconds", Math.round(seconds * 10) / 10.0);
    return out;
  }
}
