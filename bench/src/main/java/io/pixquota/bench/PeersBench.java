package io.pixquota.bench;

import static io.pixquota.bench.PeersFigures.inOrderShare;
import static io.pixquota.bench.PeersFigures.lastAnswer;
import static io.pixquota.bench.PeersFigures.perAdmitted;
import static io.pixquota.bench.PeersFigures.span;

import io.pixquota.bench.PeersFigures.Phase;
import io.pixquota.harness.BucketOptions;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import java.io.File;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Our SDK against its peers, same scenarios, same run, same Redis, same mock BACEN; every replica a separate process
 * ({@link PeerReplica}, {@link PeerHot}). Prints markdown tables (medians and spreads over {@code --runs}) and writes
 * an SVG of scenario 1's timelines.
 */
@Command(name = "peers", mixinStandardHelpOptions = true,
    description = "Our SDK vs Bucket4j, Redisson RRateLimiter, a retry loop, a local limiter and none: bursts, "
        + "saturation, round trips, acquire latency, hot key, fairness.")
final class PeersBench implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "3", description = "Runs of every scenario (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--seconds", defaultValue = "60",
      description = "Length of each saturation run, cold and warm (default ${DEFAULT-VALUE}).")
  int seconds;

  @Mixin
  BucketOptions bucket;

  @Option(names = "--calls", defaultValue = "20",
      description = "Calls per replica in a burst (default ${DEFAULT-VALUE}).")
  int calls;

  @Option(names = "--threads", defaultValue = "8",
      description = "Caller threads per replica at saturation (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--plan-jitter-ms", defaultValue = "100",
      description = "The J given to the quota planner for the extra row (default ${DEFAULT-VALUE}).")
  long planJitterMs;

  @Option(names = "--fair-calls", defaultValue = "40",
      description = "Arrivals per replica in the fairness scenario (default ${DEFAULT-VALUE}).")
  int fairCalls;

  @Option(names = "--fair-overload", defaultValue = "3",
      description = "Arrival rate / limiter rate in the fairness scenario (default ${DEFAULT-VALUE}).")
  double fairOverload;

  @Option(names = "--samples", defaultValue = "20000",
      description = "Latency samples of each kind per run (default ${DEFAULT-VALUE}).")
  int samples;

  @Option(names = "--hot-seconds", defaultValue = "5", description = "Hot-key run length (default ${DEFAULT-VALUE}).")
  double hotSeconds;

  @Option(names = "--hot-threads", defaultValue = "16",
      description = "Threads per process on the hot key (default ${DEFAULT-VALUE}).")
  int hotThreads;

  @Option(names = "--limiters", split = ",", description = "Limiters to compare (default: all but OURS_BOOKED, "
      + "OURS_SHARES and the Lettuce ones, which --redis-client adds).")
  EnumSet<Limiter> limiters = EnumSet.complementOf(EnumSet.of(Limiter.OURS_BOOKED, Limiter.OURS_SHARES,
      Limiter.OURS_LETTUCE, Limiter.OURS_BOOKED_LETTUCE));

  /** Which client our bucket runs on. */
  enum RedisClients { REDISSON, LETTUCE, BOTH }

  @Option(names = "--redis-client", defaultValue = "redisson", description = "Our bucket's Redis client: redisson, "
      + "lettuce (OURS and OURS_BOOKED on Lettuce instead) or both (OURS_LETTUCE and OURS_BOOKED_LETTUCE beside them; "
      + "default ${DEFAULT-VALUE}).")
  String redisClientName;

  @Option(names = "--scenarios", split = ",", defaultValue = "burst,saturation,latency,hot",
      description = "Scenarios: burst (1, 3, 6), saturation (2, 3), latency (4), hot (5) (default ${DEFAULT-VALUE}).")
  List<String> scenarios;

  @Option(names = "--chart", defaultValue = "docs/peers-burst.svg",
      description = "Where to write the SVG of scenario 1's cold timelines (default ${DEFAULT-VALUE}).")
  Path chart;

  private final File childLog = new File(System.getProperty("java.io.tmpdir"), "bench-peers-children.log");

  /** One row: a limiter with its settings. */
  record Setting(String label, Limiter limiter, List<String> args, boolean planner) {}


  @Override
  public Integer call() throws Exception {
    for (String s : scenarios) {
      if (!List.of("burst", "saturation", "latency", "hot").contains(s)) {
        throw new IllegalArgumentException("--scenarios takes burst, saturation, latency, hot, but was '" + s + "'");
      }
    }
    if (runs < 1 || seconds < 10) {
      throw new IllegalArgumentException("--runs must be >= 1 and --seconds >= 10, but were " + runs + ", " + seconds);
    }
    RedisClients redisClient;
    try {
      redisClient = RedisClients.valueOf(redisClientName.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--redis-client takes redisson, lettuce or both, but was '"
          + redisClientName + "'");
    }
    if (redisClient != RedisClients.REDISSON) {
      if (limiters.contains(Limiter.OURS)) {
        limiters.add(Limiter.OURS_LETTUCE);
      }
      if (limiters.contains(Limiter.OURS_BOOKED)) {
        limiters.add(Limiter.OURS_BOOKED_LETTUCE);
      }
      if (redisClient == RedisClients.LETTUCE) {
        limiters.removeAll(EnumSet.of(Limiter.OURS, Limiter.OURS_BOOKED));
      }
    }
    List<Setting> settings = new ArrayList<>();
    for (Limiter l : limiters) {
      settings.add(new Setting(l.label() + " " + fmt(bucket.capacity) + " / " + fmt(bucket.rate), l,
          List.of("--capacity", fmt(bucket.capacity), "--rate", fmt(bucket.rate)), false));
    }
    if (limiters.contains(Limiter.OURS)) {
      settings.add(new Setting("ours, planner (J = " + planJitterMs + " ms)", Limiter.OURS,
          List.of("--plan-jitter-ms", Long.toString(planJitterMs)), true));
    }
    StringBuilder out = new StringBuilder();
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().threads(128).build())) {
      QuotaPolicy policy = mock.config().policy();
      double providerRate = policy.refillTokens() * 1000.0 / policy.periodMillis();
      out.append(String.format(Locale.ROOT, "bench peers, %s, %d cores; mock BACEN token bucket %d + %s/s; every "
          + "limiter at burst %s, %s/s unless noted; %d runs; child processes log to %s%n%n",
          LocalDate.now(ZoneOffset.UTC), Runtime.getRuntime().availableProcessors(), policy.limit(), fmt(providerRate),
          fmt(bucket.capacity), fmt(bucket.rate), runs, childLog));
      for (Setting s : settings) {
        out.append("- `").append(s.label()).append("`: ").append(s.planner()
            ? "our SDK with QuotaPlanner.plan(GET /policies/pix, J)" : s.limiter().description).append('\n');
      }
      out.append('\n');
      System.out.print(out);
      out.setLength(0);
      // the short scenarios first: their tables are out before the long saturation runs
      if (scenarios.contains("latency")) {
        LatencyScenario.run(redis.uri(), runs, samples, limiters, childLog);
      }
      if (scenarios.contains("hot")) {
        HotScenario.run(redis.uri(), runs, hotSeconds, hotThreads, limiters, childLog);
      }
      if (scenarios.contains("burst")) {
        bursts(settings, mock, redis.uri(), policy, providerRate);
      }
      if (scenarios.contains("saturation")) {
        for (int replicas : new int[] {2, 4}) {
          saturation(settings, mock, redis.uri(), replicas, providerRate);
        }
      }
    }
    return 0;
  }

  // ---------------------------------------------------------------- scenario 1 (+ 3 and 6): bursts, fairness

  private void bursts(List<Setting> settings, MockBacen mock, URI redis, QuotaPolicy policy, double providerRate)
      throws Exception {
    int n = 2 * calls;
    Map<Setting, List<double[]>> rows = new LinkedHashMap<>(); // per run: cold/warm figures and fairness
    Map<Setting, Phase> firstCold = new LinkedHashMap<>();
    for (int run = 1; run <= runs; run++) {
      for (Setting s : settings) {
        try (PeerFleet reps = PeerFleet.start(s.limiter(), s.args(), 2, mock.url(), redis, childLog)) {
          Phase cold = PeersFigures.phase(reps, mock, redis, "burst", calls, 0);
          Thread.sleep(2500); // every bucket and window full again
          Phase warm = PeersFigures.phase(reps, mock, redis, "burst", calls, 0);
          Thread.sleep(2500);
          long interval = Math.max(1, Math.round(1000 / (fairOverload * bucket.rate)));
          Phase fair = PeersFigures.phase(reps, mock, redis, "paced", fairCalls, interval);
          if (run == 1) {
            firstCold.put(s, cold);
          }
          double ideal = idealSeconds(s, n, policy, providerRate);
          rows.computeIfAbsent(s, k -> new ArrayList<>()).add(new double[] {
              cold.accepted(), cold.refused(), span(cold) / ideal, lastAnswer(cold), perAdmitted(cold), cold.errors(),
              warm.accepted(), warm.refused(), span(warm) / ideal, lastAnswer(warm), perAdmitted(warm), warm.errors(),
              inOrderShare(fair), fair.pings() + cold.pings() + warm.pings()});
          System.err.printf(Locale.ROOT, "burst run %d %s: cold %d/%d x429 %.3f, warm %d/%d x429 %.3f, fair %.3f%n",
              run, s.label(), cold.accepted(), cold.refused(), span(cold) / ideal, warm.accepted(), warm.refused(),
              span(warm) / ideal, inOrderShare(fair));
        }
      }
    }
    StringBuilder t = new StringBuilder();
    t.append(String.format(Locale.ROOT, "### Scenario 1 (+3): burst, 2 replicas x %d calls at once, %d runs%n%n", calls,
        runs));
    t.append("Completion = first to last arrival at the provider, divided by the setting's ideal (N - B) / r; the "
        + "planner row divides by the provider's physical limit (N - Bp) / rp. Medians, (min-max) over runs; 429s "
        + "listed per run.\n\n");
    t.append("| setting | served cold | 429 cold | completion cold / ideal | start to last answer cold (s) | 429 warm "
        + "| completion warm / ideal | start to last answer warm (s) | Redis commands per admitted call (cold; warm) "
        + "| errors |\n");
    t.append("|---|---|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<Setting, List<double[]>> e : rows.entrySet()) {
      List<double[]> r = e.getValue();
      t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s; %s | %s |%n",
          e.getKey().label(), Stats.median(r, 0, "%.0f"), Stats.each(r, 1), Stats.median(r, 2, "%.3f"),
          Stats.median(r, 3, "%.2f"), Stats.each(r, 7), Stats.median(r, 8, "%.3f"), Stats.median(r, 9, "%.2f"),
          Stats.median(r, 4, "%.3f"), Stats.median(r, 10, "%.3f"), Stats.sum(r, 5) + Stats.sum(r, 11)));
    }
    t.append(String.format(Locale.ROOT, "%n### Scenario 6: fairness, %d arrivals from 2 replicas, one every %d ms "
        + "(%.0fx the rate), warm, %d runs%n%n", 2 * fairCalls,
        Math.max(1, Math.round(1000 / (fairOverload * bucket.rate))),
        fairOverload, runs));
    t.append("Share of admissions that went to the earliest-arrived caller still waiting (1.000 = first come, first "
        + "served).\n\n| setting | in arrival order |\n|---|---|\n");
    for (Map.Entry<Setting, List<double[]>> e : rows.entrySet()) {
      t.append(String.format(Locale.ROOT, "| %s | %s |%n", e.getKey().label(), Stats.median(e.getValue(), 12,
          "%.3f")));
    }
    System.out.println(t);
    if (chart != null) {
      Files.createDirectories(chart.toAbsolutePath().getParent());
      Files.writeString(chart, BurstChart.svg(firstCold, n, bucket.capacity, bucket.rate, policy, providerRate));
      System.out.println("Chart of the first run's cold bursts: " + chart + "\n");
    }
  }

  private double idealSeconds(Setting s, int n, QuotaPolicy policy, double providerRate) {
    return s.planner() ? (n - policy.limit()) / providerRate : (n - bucket.capacity) / bucket.rate;
  }

  // ---------------------------------------------------------------- scenario 2 (+ 3): saturation

  private void saturation(List<Setting> settings, MockBacen mock, URI redis, int replicas, double providerRate)
      throws Exception {
    Map<Setting, List<double[]>> rows = new LinkedHashMap<>();
    for (int run = 1; run <= runs; run++) {
      for (Setting s : settings) {
        try (PeerFleet reps = PeerFleet.start(s.limiter(), s.args(), replicas, mock.url(), redis, childLog)) {
          Phase cold = PeersFigures.phase(reps, mock, redis, "saturate", threads, seconds * 1000L);
          Thread.sleep(2500);
          Phase warm = PeersFigures.phase(reps, mock, redis, "saturate", threads, seconds * 1000L);
          double[] row = {cold.accepted(), cold.refused(), utilization(cold, providerRate), perAdmitted(cold),
              warm.accepted(), warm.refused(), utilization(warm, providerRate), perAdmitted(warm),
              (double) (cold.pings() + warm.pings())
                  / (cold.accepted() + cold.refused() + warm.accepted() + warm.refused()),
              cold.errors() + warm.errors()};
          rows.computeIfAbsent(s, k -> new ArrayList<>()).add(row);
          System.err.printf(Locale.ROOT, "saturation %d replicas run %d %s: cold %d/%d x429 %.3f, warm %d/%d x429 "
              + "%.3f%n", replicas, run, s.label(), cold.accepted(), cold.refused(), row[2], warm.accepted(),
              warm.refused(), row[6]);
        }
      }
    }
    StringBuilder t = new StringBuilder();
    t.append(String.format(Locale.ROOT, "### Scenario 2 (+3): saturation, %d replicas x %d threads calling back to "
        + "back for %d s, cold then warm, %d runs%n%n", replicas, threads, seconds, runs));
    t.append("Utilization = calls the provider accepted per second from 5 s after the first arrival to the end, "
        + "divided by its rate (" + fmt(providerRate) + "/s). 429s listed per run.\n\n");
    t.append("| setting | 429 cold | utilization cold | 429 warm | utilization warm | Redis commands per admitted "
        + "call (cold; warm) | keep-alive PINGs per admitted call | errors |\n|---|---|---|---|---|---|---|---|\n");
    for (Map.Entry<Setting, List<double[]>> e : rows.entrySet()) {
      List<double[]> r = e.getValue();
      t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s; %s | %s | %s |%n", e.getKey().label(),
          Stats.each(r, 1), Stats.median(r, 2, "%.3f"), Stats.each(r, 5), Stats.median(r, 6, "%.3f"),
          Stats.median(r, 3, "%.3f"), Stats.median(r, 7, "%.3f"), Stats.median(r, 8, "%.3f"), Stats.sum(r, 9)));
    }
    System.out.println(t);
  }

  private double utilization(Phase p, double providerRate) {
    long first = p.events().stream().mapToLong(e -> e[0]).min().orElse(0);
    long from = first + TimeUnit.SECONDS.toNanos(5);
    long to = p.startNanos() + TimeUnit.SECONDS.toNanos(seconds);
    long accepted = p.events().stream().filter(e -> e[1] != 429 && e[0] >= from && e[0] < to).count();
    return accepted / (providerRate * (to - from) / 1e9);
  }

  static String fmt(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3f", v);
  }
}
