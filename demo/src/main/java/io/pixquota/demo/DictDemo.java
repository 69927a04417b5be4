package io.pixquota.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.dict.DictPolicy;
import io.pixquota.bacen.dict.DictReserve;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bacen-demo --dict}: the scan scenario. Payers with standing and new payers of two replicas and a scanner on
 * one of them look keys up in the judge's DICT at once, first straight at DICT, then through the SDK's mirror; the
 * runs side by side. Exit 2 when DICT answered 429 to a lookup the SDK let through.
 */
final class DictDemo {
  private final PrintStream out;
  private final boolean jsonOnly;
  private final DictOptions options;
  private final long durationMillis;
  private final long latencyMs;
  private final Path report;

  DictDemo(PrintStream out, boolean jsonOnly, DictOptions options, long durationMillis, long latencyMs,
      Path report) {
    this.out = out;
    this.jsonOnly = jsonOnly;
    this.options = options;
    this.durationMillis = durationMillis;
    this.latencyMs = latencyMs;
    this.report = report;
  }

  /** {@code --dict}: 15 s per run and DICT answering in 20 ms, unless {@code --duration}, {@code --latency-ms}. */
  static int fromOptions(DemoMain demo, String redisUrl) throws Exception {
    if (demo.foreignRate != null || demo.priorities || demo.bacenUrl != null || demo.inFlight != null) {
      throw demo.bad("--dict runs on its own, against the embedded judge: without --foreign-rate, --priorities, "
          + "--in-flight or --bacen-url");
    }
    DictOptions o = demo.dictOptions;
    try {
      DictPolicies.parse(o.counting);
    } catch (IllegalArgumentException e) {
      throw demo.bad("--dict-counting is invalid: " + e.getMessage());
    }
    if (!o.scanner.equalsIgnoreCase("rotate") && !o.scanner.equalsIgnoreCase("fixed")) {
      throw demo.bad("--scanner must be rotate or fixed, but was '" + o.scanner + "'");
    }
    if (o.scannerThreads < 1 || o.scannerThreads > 64) {
      throw demo.bad("--scanner-threads must be within 1..64, but was " + o.scannerThreads);
    }
    if (o.reserve != null && !(o.reserve >= 0 && o.reserve <= 1)) {
      throw demo.bad("--dict-reserve must be within 0..1, but was " + o.reserve);
    }
    long seconds = demo.given("--duration") ? demo.durationSeconds : 15;
    if (seconds < 3 || seconds > 3600) {
      throw demo.bad("--duration must be within 3..3600 s with --dict, but was " + seconds);
    }
    try (PrivateRedisServer redis = redisUrl == null ? PrivateRedisServer.start() : null) {
      long latency = demo.given("--latency-ms") ? demo.latencyMs : 20;
      return new DictDemo(demo.out(), demo.jsonOnly, o, seconds * 1000L, latency, demo.report)
          .run(redis != null ? redis.uri().toString() : redisUrl, demo.mode != DemoMain.Mode.THROTTLED,
              demo.mode != DemoMain.Mode.DIRECT);
    }
  }

  int run(String redisUrl, boolean direct, boolean throughSdk) throws Exception {
    DictPolicies table = DictPolicies.parse(options.counting);
    DictReserve d = DictReserve.defaults();
    DictReserve reserve = options.reserve == null ? d : new DictReserve(options.reserve,
        Math.max(options.reserve, d.riskyShare()), 0, d.standingTtl());
    DictOptions.Scanner scanner = DictOptions.Scanner.valueOf(options.scanner.toUpperCase(Locale.ROOT));
    try (MockBacen mock = MockBacen.start(MockConfig.builder().latency(latencyMs, 0)
        .dict(io.pixquota.mock.DictPolicies.parse(options.counting)).build())) {
      if (!jsonOnly) {
        out.println("DICT " + mock.dictUrl() + ", policies in force: " + describe(table));
        out.printf(Locale.ROOT, "2 replicas: a payer with standing on each (a lookup a second), a new payer every 2 s "
            + "on each (one lookup), and a scanner on r1 (%d thread%s x 20 random keys a second, %s); the SDK keeps "
            + "%.0f%% of each participant bucket for payers with standing; %d s per run%n%n", options.scannerThreads,
            options.scannerThreads == 1 ? "" : "s", scanner == DictOptions.Scanner.ROTATE
            ? "a new end-user id for every lookup" : "one end-user id", reserve.share() * 100, durationMillis / 1000);
      }
      DictRun scenario = new DictRun(mock.dictUrl(), redisUrl, new DictRun.Scenario(table, durationMillis, scanner,
          options.scannerThreads, reserve, mock::reset));
      Map<String, DictResult> results = new LinkedHashMap<>();
      Map<String, Object> all = new LinkedHashMap<>();
      all.put("policies", table.counting());
      all.put("scanner", scanner.name().toLowerCase(Locale.ROOT));
      all.put("scannerThreads", options.scannerThreads);
      all.put("reserve", reserve.share());
      for (String name : List.of("direct", "sdk")) {
        if (name.equals("direct") ? !direct : !throughSdk) {
          continue;
        }
        DictResult r = scenario.run(name, name.equals("sdk"));
        r.providerRefused(refusedByPolicy(mock));
        mock.reset();
        results.put(name, r);
      }
      if (jsonOnly) {
        results.forEach((k, v) -> all.put(k, v.toJson()));
        out.println(new ObjectMapper().writeValueAsString(all));
      } else {
        DictTable.print(out, results);
      }
      if (report != null) {
        Files.writeString(report, DictReport.html(results, describe(table)), StandardCharsets.UTF_8);
        if (!jsonOnly) {
          out.println("Report written to " + report.toAbsolutePath());
        }
      }
      DictResult sdk = results.get("sdk");
      return sdk != null && sdk.providerRefusals() > 0 ? 2 : 0;
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Long> refusedByPolicy(MockBacen mock) {
    Map<String, Long> out = new LinkedHashMap<>();
    ((Map<String, Map<String, Long>>) mock.dictStats().get("policies")).forEach((k, v) ->
        out.put(k.substring(k.indexOf('|') + 1), v.get("refused")));
    return out;
  }

  static String describe(DictPolicies table) {
    StringBuilder s = new StringBuilder(table.counting().startsWith("later")
        ? "the later counting, participant category " + table.counting().substring(6) : "the spec's v1.2.0");
    for (DictPolicy p : table.policies()) {
      s.append("; ").append(p.name()).append(' ').append(ResultTable.number(p.capacity())).append(" at ")
          .append(ResultTable.number(p.refillTokens())).append(" per ").append(p.refillPeriod().toSeconds())
          .append(" s (404 costs ").append(ResultTable.number(p.cost404())).append(')');
    }
    return s.toString();
  }
}
