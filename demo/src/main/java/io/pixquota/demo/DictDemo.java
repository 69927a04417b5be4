package io.pixquota.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.dict.DictPolicy;
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
 * {@code bacen-demo --dict}: the scan scenario. Honest users of two replicas and a scanner on one of them look keys up
 * in the judge's DICT at once, first straight at DICT, then through the SDK's mirror; the runs side by side. Exit 2
 * when DICT answered 429 to a lookup the SDK let through.
 */
final class DictDemo {
  private final PrintStream out;
  private final boolean jsonOnly;
  private final String counting;
  private final long durationMillis;
  private final long latencyMs;
  private final Path report;

  DictDemo(PrintStream out, boolean jsonOnly, String counting, long durationMillis, long latencyMs, Path report) {
    this.out = out;
    this.jsonOnly = jsonOnly;
    this.counting = counting;
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
    try {
      DictPolicies.parse(demo.dictCounting);
    } catch (IllegalArgumentException e) {
      throw demo.bad("--dict-counting is invalid: " + e.getMessage());
    }
    long seconds = demo.given("--duration") ? demo.durationSeconds : 15;
    if (seconds < 3 || seconds > 3600) {
      throw demo.bad("--duration must be within 3..3600 s with --dict, but was " + seconds);
    }
    try (PrivateRedisServer redis = redisUrl == null ? PrivateRedisServer.start() : null) {
      long latency = demo.given("--latency-ms") ? demo.latencyMs : 20;
      return new DictDemo(demo.out(), demo.jsonOnly, demo.dictCounting, seconds * 1000L, latency, demo.report)
          .run(redis != null ? redis.uri().toString() : redisUrl, demo.mode != DemoMain.Mode.THROTTLED,
              demo.mode != DemoMain.Mode.DIRECT);
    }
  }

  int run(String redisUrl, boolean direct, boolean throughSdk) throws Exception {
    DictPolicies table = DictPolicies.parse(counting);
    try (MockBacen mock = MockBacen.start(MockConfig.builder().latency(latencyMs, 0)
        .dict(io.pixquota.mock.DictPolicies.parse(counting)).build())) {
      if (!jsonOnly) {
        out.println("DICT " + mock.dictUrl() + ", policies in force: " + describe(table));
        out.printf(Locale.ROOT, "2 replicas: %d honest users (a lookup a second each, paying for what they find), "
            + "and a scanner on r1 (2 threads x 20 random keys a second); %d s per run%n%n",
            2 * DictRun.USERS_PER_REPLICA, durationMillis / 1000);
      }
      DictRun scenario = new DictRun(mock.dictUrl(), redisUrl, table, durationMillis);
      Map<String, DictResult> results = new LinkedHashMap<>();
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
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("policies", table.counting());
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
