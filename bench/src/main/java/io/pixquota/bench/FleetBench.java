package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.harness.ForeignConsumer;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.Sleep;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Fleet safety against the mock (bucket 10 + 10/s), each scenario on a Redis and a mock of its own, replicas as
 * separate {@code peer-replica} JVMs with the SDK's interceptor: a rolling deploy, a misconfigured replica, a foreign
 * consumer on the same credentials (without and with rate adaptation), and a fixed Retry-After. The mock's audit
 * (every arrival, its status and its {@code X-Replica-Id}) is the judge.
 */
@Command(name = "fleet", mixinStandardHelpOptions = true,
    description = "Rolling deploy, misconfigured replica, foreign consumer, Retry-After: judged by the mock.")
final class FleetBench implements Callable<Integer> {
  @Option(names = "--scenarios", split = ",", defaultValue = "deploy,misconfigured,foreign,retry-after",
      description = "Which to run (default ${DEFAULT-VALUE}).")
  Set<String> scenarios = new LinkedHashSet<>();

  @Option(names = "--foreign-rate", defaultValue = "3",
      description = "Foreign calls per second (default ${DEFAULT-VALUE}).")
  double foreignRate;

  @Option(names = "--foreign-seconds", defaultValue = "60",
      description = "Length of each foreign-consumer run (default ${DEFAULT-VALUE}).")
  int foreignSeconds;

  static final ProviderPolicy PROVIDER = ProviderPolicy.tokenBucket(10, 10, Duration.ofSeconds(1));
  private static final int THREADS = 8;
  private final File childLog = new File(System.getProperty("java.io.tmpdir"), "bench-fleet-children.log");

  @Override
  public Integer call() throws Exception {
    System.out.printf(Locale.ROOT, "bench fleet: mock bucket 10 + 10/s, replicas of %d threads calling back to back; "
        + "%d cores; children log to %s%n%n", THREADS, Runtime.getRuntime().availableProcessors(), childLog);
    for (String s : scenarios) {
      switch (s) {
        case "deploy" -> deploy();
        case "misconfigured" -> misconfigured();
        case "foreign" -> foreign();
        case "retry-after" -> retryAfter();
        default -> throw new IllegalArgumentException("--scenarios: unknown scenario '" + s + "'");
      }
    }
    return 0;
  }

  /** Two replicas at 8 / 9 replaced one by one (at 20 s and 40 s) by replicas with the planner's settings. */
  private void deploy() throws Exception {
    QuotaPlan plan = QuotaPlanner.plan(PROVIDER, Duration.ofMillis(100));
    try (Run run = new Run(MockConfig.defaults())) {
      List<String> old = List.of("--capacity", "8", "--rate", "9");
      List<String> planned = List.of("--plan-jitter-ms", "100");
      run.replica(1, old, 0, 20_000);
      run.replica(2, old, 0, 40_000);
      run.replica(3, planned, 20_000, 70_000);
      run.replica(4, planned, 40_000, 50_000);
      run.awaitResults();
      List<Event> events = run.events();
      StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "### Rolling deploy: r1, r2 at 8 / 9 per s; r1 "
          + "replaced at 20 s and r2 at 40 s by replicas with the planner's settings (%.2f / %.2f per s, J = 100 ms); "
          + "lease 30 s; 90 s%n%n", plan.capacity(), plan.ratePerSecond()));
      t.append("| window | replicas calling | configurations live | admitted / s | 429 |\n|---|---|---|---|---|\n");
      String[] who = {"r1, r2 (8 / 9)", "r1, r2 (8 / 9)", "r2 (8 / 9), r3 (plan)", "r2 (8 / 9), r3 (plan)",
          "r3, r4 (plan)", "r3, r4 (plan)", "r3, r4 (plan)", "r3, r4 (plan)", "r3, r4 (plan)"};
      String[] live = {"1", "1", "2", "2", "2", "2", "2 (old until 70 s)", "1", "1"};
      for (int w = 0; w < 9; w++) {
        long from = w * 10_000_000L;
        long to = from + 10_000_000L;
        long ok = events.stream().filter(e -> e.atMicros >= from && e.atMicros < to && e.status != 429).count();
        long refused = events.stream().filter(e -> e.atMicros >= from && e.atMicros < to && e.status == 429).count();
        t.append(String.format(Locale.ROOT, "| %d-%d s | %s | %s | %.1f | %d |%n", w * 10, w * 10 + 10, who[w],
            live[w], ok / 10.0, refused));
      }
      System.out.println(t);
    }
  }

  /** Two replicas at 8 / 9; a third at 20 / 20 (above the provider's 10 / 10) joins at 10 s. */
  private void misconfigured() throws Exception {
    try (Run run = new Run(MockConfig.defaults())) {
      List<String> good = List.of("--capacity", "8", "--rate", "9");
      run.replica(1, good, 0, 40_000);
      run.replica(2, good, 0, 40_000);
      run.replica(3, List.of("--capacity", "20", "--rate", "20"), 10_000, 30_000);
      List<JsonNode> results = run.awaitResults();
      List<Event> events = run.events();
      long ok = events.stream().filter(e -> e.atMicros >= 10_000_000 && e.atMicros < 40_000_000 && e.status != 429)
          .count();
      long refused = events.stream().filter(e -> e.status == 429).count();
      StringBuilder t = new StringBuilder("### A misconfigured replica: r1, r2 at 8 / 9 per s; r3 at 20 / 20 per s "
          + "joins at 10 s; 40 s\n\n| | value |\n|---|---|\n");
      t.append(String.format(Locale.ROOT, "| admitted per second from 10 s to 40 s (bound: 9 + 8 / 30) | %.2f |%n",
          ok / 30.0));
      t.append(String.format(Locale.ROOT, "| provider 429 | %d |%n", refused));
      for (int w = 0; w < 8; w++) {
        long from = w * 5_000_000L;
        Map<String, Long> byReplica = new java.util.TreeMap<>();
        events.stream().filter(e -> e.atMicros >= from && e.atMicros < from + 5_000_000 && e.status != 429)
            .forEach(e -> byReplica.merge(e.replica, 1L, Long::sum));
        t.append(String.format(Locale.ROOT, "| admitted %d-%d s, by replica | %s |%n", w * 5, w * 5 + 5, byReplica));
      }
      for (JsonNode r : results) {
        t.append(String.format(Locale.ROOT, "| r%s saw 2 configurations, after r3's start | %s |%n",
            r.get("replica").asText(), firstDisagreement(r, run.nanosAt(10_000))));
      }
      System.out.println(t);
    }
  }

  private static String firstDisagreement(JsonNode result, long sinceNanos) {
    for (JsonNode row : result.get("fleet")) {
      if (row.get(2).asDouble() > 1) {
        return String.format(Locale.ROOT, "%.0f ms", Math.max(0, row.get(0).asDouble() - sinceNanos) / 1e6);
      }
    }
    return "never";
  }

  /**
   * A foreign consumer at --foreign-rate on the same credentials; 2 and 4 replicas; without adaptation, with it, and
   * with it and the provider's quota headers read on every answer.
   */
  private void foreign() throws Exception {
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "### A foreign consumer: %.0f calls per second on "
        + "the same credentials, evenly spaced (+-20 ms), not throttled; replicas at 8 / 9 per s calling back to back "
        + "for %d s; counted after the first 10 s%n%n", foreignRate, foreignSeconds));
    t.append("| replicas | rate adaptation | our calls / s | our 429 / min | our 429 / calls | remaining quota used "
        + "(our accepted / (10 - foreign accepted), per s) | foreign 429 / min | rate factor after 10 s, min-max |\n"
        + "|---|---|---|---|---|---|---|---|\n");
    for (int replicas : new int[] {2, 4}) {
      for (String mode : new String[] {"off", "on", "on + headers"}) {
        boolean adapt = !mode.equals("off");
        try (Run run = new Run(MockConfig.defaults())) {
          List<String> settings = new ArrayList<>(List.of("--capacity", "8", "--rate", "9"));
          if (!adapt) {
            settings.add("--no-rate-adaptation");
          }
          if (mode.endsWith("headers")) {
            settings.addAll(List.of("--quota-headers", "IETF")); // the mock's RateLimit on every answer
          }
          for (int i = 1; i <= replicas; i++) {
            run.replica(i, settings, 0, foreignSeconds * 1000L);
          }
          ForeignConsumer foreign = ForeignConsumer.paced(run.mock.url(), foreignRate, run.startMs, foreignSeconds);
          List<JsonNode> results = run.awaitResults();
          foreign.join();
          List<Event> after = run.events().stream()
              .filter(e -> e.atMicros >= 10_000_000 && e.atMicros < foreignSeconds * 1_000_000L).toList();
          double span = foreignSeconds - 10;
          long oursOk = after.stream().filter(e -> !e.foreign() && e.status != 429).count();
          long ours429 = after.stream().filter(e -> !e.foreign() && e.status == 429).count();
          long foreign429 = after.stream().filter(e -> e.foreign() && e.status == 429).count();
          long foreignOk = after.stream().filter(e -> e.foreign() && e.status != 429).count();
          double[] factor = FleetFactors.range(results, run.nanosAt(10_000));
          t.append(String.format(Locale.ROOT, "| %d | %s | %.2f | %.1f | %.2f%% | %.1f%% | %.1f | %.2f-%.2f |%n",
              replicas, mode, (oursOk + ours429) / span, ours429 * 60 / span,
              100.0 * ours429 / Math.max(1, oursOk + ours429), 100.0 * oursOk / span / (10 - foreignOk / span),
              foreign429 * 60 / span, factor[0], factor[1]));
          System.err.println("fleet foreign: " + replicas + " replicas, adaptation " + mode + " done");
        }
      }
    }
    System.out.println(t);
  }

  /** A mock whose 429s ask for 3 s; a foreign consumer at 4/s from 5 s drains it under two replicas at 8 / 9. */
  private void retryAfter() throws Exception {
    try (Run run = new Run(MockConfig.builder().retryAfterSeconds(3).build())) {
      List<String> settings = List.of("--capacity", "8", "--rate", "9");
      run.replica(1, settings, 0, 20_000);
      run.replica(2, settings, 0, 20_000);
      ForeignConsumer foreign = ForeignConsumer.paced(run.mock.url(), 4, run.startMs + 5_000, 15);
      run.awaitResults();
      foreign.join();
      List<Event> ours = run.events().stream().filter(e -> !e.foreign()).toList();
      Event first429 = ours.stream().filter(e -> e.status == 429).findFirst().orElse(null);
      StringBuilder t = new StringBuilder("### Retry-After: 3 on every 429; r1, r2 at 8 / 9 per s calling back to "
          + "back; a foreign consumer at 4 per s from 5 s to 20 s; 20 s\n\n| | value |\n|---|---|\n");
      if (first429 == null) {
        t.append("| our first 429 | none: the foreign consumer did not drain the provider |\n");
      } else {
        long[] arrivalsAfter = ours.stream().filter(e -> e.atMicros > first429.atMicros)
            .mapToLong(e -> e.atMicros).toArray();
        long within = ours.stream().filter(e -> e.atMicros > first429.atMicros
            && e.atMicros < first429.atMicros + 3_000_000).count();
        t.append(String.format(Locale.ROOT, "| our first 429 (by %s) | at %.3f s |%n", first429.replica,
            first429.atMicros / 1e6));
        t.append(String.format(Locale.ROOT, "| our calls reaching the mock in the 3 s after it | %d |%n", within));
        t.append(String.format(Locale.ROOT, "| our next call reached the mock after | %s |%n", arrivalsAfter.length == 0
            ? "none" : String.format(Locale.ROOT, "%.3f s", (arrivalsAfter[0] - first429.atMicros) / 1e6)));
        t.append(String.format(Locale.ROOT, "| our 429s in all | %d |%n", ours.stream().filter(e -> e.status == 429)
            .count()));
      }
      System.out.println(t);
    }
  }

  /** One arrival at the mock, in microseconds after the run's start. */
  private record Event(long atMicros, int status, String replica) {
    boolean foreign() {
      return ForeignConsumer.ID.equals(replica);
    }
  }

  /**
   * One scenario's Redis, mock and replicas (each with its own settings, start and length, as in a deploy), and a
   * common start 8 s ahead, after every JVM has started.
   */
  private final class Run implements AutoCloseable {
    final PrivateRedisServer redis = PrivateRedisServer.start();
    final MockBacen mock;
    final long startMs = System.currentTimeMillis() + 8_000;
    private final List<List<String>> settings = new ArrayList<>();
    private final List<Long> goMs = new ArrayList<>();
    private final List<Long> lengthMs = new ArrayList<>();
    private PeerFleet fleet;

    Run(MockConfig config) throws IOException {
      mock = MockBacen.start(config);
    }

    /** Replica {@code id} (numbered from 1, in order) calls from {@code offsetMs} after the start, for {@code ms}. */
    void replica(int id, List<String> replicaSettings, long offsetMs, long ms) {
      if (id != settings.size() + 1) {
        throw new IllegalArgumentException("replicas are numbered in order, but " + id + " came after "
            + settings.size());
      }
      List<String> args = new ArrayList<>(replicaSettings);
      args.addAll(List.of("--max-wait-ms", "10000"));
      settings.add(args);
      goMs.add(startMs + offsetMs);
      lengthMs.add(ms);
    }

    long nanosAt(long offsetMs) {
      return Sleep.nanoTimeAt(startMs + offsetMs);
    }

    List<JsonNode> awaitResults() throws IOException {
      fleet = PeerFleet.start(Limiter.OURS, settings, mock.url(), redis.uri(), childLog);
      return fleet.run(goMs, "saturate", THREADS, lengthMs);
    }

    List<Event> events() {
      Map<String, Object> stats = mock.stats("demo", true);
      long offsetMicros = (mock.originNanoTime() - nanosAt(0)) / 1000;
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> list = (List<Map<String, Object>>) stats.get("events");
      List<Event> events = new ArrayList<>();
      for (Map<String, Object> e : list) {
        events.add(new Event(((Number) e.get("atMicros")).longValue() + offsetMicros,
            ((Number) e.get("status")).intValue(), String.valueOf(e.get("replica"))));
      }
      events.sort((a, b) -> Long.compare(a.atMicros, b.atMicros));
      return events;
    }

    @Override
    public void close() {
      if (fleet != null) {
        fleet.close();
      }
      mock.close();
      redis.close();
    }
  }
}
