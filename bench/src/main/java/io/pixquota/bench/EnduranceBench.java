package io.pixquota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.pixquota.bench.EnduranceFaults.Fault;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * An hour (or {@code --minutes}) of mixed load and faults on the real pieces, each in its own process: a private
 * redis-server, the mock BACEN as judge of API Pix and DICT (a bucket of 10 + 10/s; DICT's later counting), a second
 * mock as the SPI-style judge (6 in flight at most, answering in 200 ms), and {@code --replicas} replica JVMs of
 * {@link EnduranceReplica}. A fault every few minutes ({@link EnduranceFaults}); every {@code --sample-seconds} each
 * replica's vitals, Redis's keys by kind and memory, and the judges' counts, kept as a time series in
 * {@code --out}. Ends with {@link EnduranceChecks}: exit 1 when one fails.
 */
@Command(name = "endurance", mixinStandardHelpOptions = true,
    description = "Mixed load and faults for an hour: the quota kept, nothing leaking, nothing drifting.")
final class EnduranceBench implements Callable<Integer> {
  @Option(names = "--minutes", defaultValue = "60", description = "Run length (default ${DEFAULT-VALUE}).")
  double minutes;

  @Option(names = "--replicas", defaultValue = "4", description = "Replica JVMs (default ${DEFAULT-VALUE}).")
  int replicas;

  @Option(names = "--sample-seconds", defaultValue = "10",
      description = "Sampling period (default ${DEFAULT-VALUE}).")
  int sampleSeconds;

  @Option(names = "--out", description = "The run's JSON, its report beside it as .html (default: endurance.json "
      + "in the temp directory).")
  Path out;

  private final ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Override
  public Integer call() throws Exception {
    if (minutes < 1 || minutes > 24 * 60) {
      throw new IllegalArgumentException("--minutes must be within 1..1440, but was " + minutes);
    }
    if (replicas < 2 || replicas > 8) {
      throw new IllegalArgumentException("--replicas must be within 2..8, but was " + replicas);
    }
    long runMs = Math.round(minutes * 60_000);
    long warmUpMs = Math.min(600_000, runMs / 3);
    Path output = out != null ? out : Path.of(System.getProperty("java.io.tmpdir"), "endurance.json");
    File log = new File(System.getProperty("java.io.tmpdir"), "bench-endurance-replicas.log");
    Files.deleteIfExists(log.toPath());
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen bacen = MockBacen.start(MockConfig.builder().port(0).policy(QuotaPolicy.bucket(10, 10, 1000))
            .latency(20, 5).dict(io.pixquota.mock.DictPolicies.parse(EnduranceReplica.DICT_COUNTING)).build());
        MockBacen spi = MockBacen.start(MockConfig.builder().port(0).policy(QuotaPolicy.bucket(100_000, 100_000,
            1000)).maxInFlight(EnduranceReplica.SPI_CAP).latency(200, 0).build())) {
      long start = System.nanoTime();
      EnduranceJudges judges = new EnduranceJudges(bacen, spi, start);
      System.out.printf(Locale.ROOT, "bench endurance: %.0f min, %d replicas, %d cores; redis %s; replicas' error "
          + "output in %s%n", minutes, replicas, Runtime.getRuntime().availableProcessors(), redis.uri(), log);
      try (EnduranceFleet fleet = new EnduranceFleet(bacen.url(), spi.url(), redis.uri().toString(),
          sampleSeconds * 1000L, start, log)) {
        for (int id = replicas; id >= 1; id--) { // replica 1 scans: its scanner starts once every payer has standing
          fleet.start(id, EnduranceFaults.RATE);
        }
        // a fault every 4 minutes in an hour: every kind has run, and settled, before the half of a life that the
        // meters check reads
        int count = Math.max(EnduranceFaults.Kind.values().length, (int) (minutes / 4));
        long everyMs = runMs / (count + 1);
        EnduranceFaults faults = new EnduranceFaults(redis, bacen, fleet, replicas, everyMs);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        for (int i = 0; i < count; i++) {
          int index = i;
          // into the run, not after the fleet's start: the last fault (at most half the time between faults) and
          // its settling end before the run does
          scheduler.schedule(() -> {
            faults.run(index, () -> (System.nanoTime() - start) / 1_000_000);
            return null;
          }, everyMs * (i + 1) - (System.nanoTime() - start) / 1_000_000, TimeUnit.MILLISECONDS);
        }
        List<Map<String, Object>> series = new ArrayList<>();
        for (long next = 0; next <= runMs; next += sampleSeconds * 1000L) {
          long wait = next - (System.nanoTime() - start) / 1_000_000;
          if (wait > 0) {
            Thread.sleep(wait);
          }
          long at = (System.nanoTime() - start) / 1_000_000;
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("atMs", at);
          Fault f = faults.at(at);
          row.put("fault", f == null ? null : f.kind().name());
          row.putAll(judges.sample());
          row.put("redis", RedisCensus.take(redis.port()));
          series.add(row);
          progress(row, fleet.alive());
        }
        scheduler.shutdown(); // a fault still running ends as it would (a provider set back, a replica started)
        if (!scheduler.awaitTermination(90, TimeUnit.SECONDS)) {
          scheduler.shutdownNow();
        }
        fleet.close();
        EnduranceChecks checks = new EnduranceChecks(warmUpMs, runMs, faults.done());
        checks.check("faults that ran as scheduled", faults.done().size() + " of " + count
            + (faults.failures().isEmpty() ? "" : "; failed: " + faults.failures()),
            faults.done().size() == count && faults.failures().isEmpty());
        checks.replicas(fleet.samples());
        checks.keys(series, fleet.samples(), replicas);
        judges.check(checks, faults, series, fleet.samples(), replicas);
        Map<Fault, Map<String, Long>> costs = EnduranceCosts.of(faults.done(), fleet.samples(),
            sampleSeconds * 1000L);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("minutes", minutes);
        result.put("replicas", replicas);
        result.put("warmUpMs", warmUpMs);
        result.put("faults", faults.done().stream().map(x -> Map.of("kind", x.kind().name(), "label",
            x.kind().label, "startMs", x.startMs(), "endMs", x.endMs(), "cost", costs.get(x))).toList());
        result.put("checks", checks.all());
        result.put("series", series);
        result.put("replicaSamples", fleet.samples());
        Files.writeString(output, json.writeValueAsString(result));
        Path page = output.resolveSibling(output.getFileName().toString().replaceAll("\\.json$", "") + ".html");
        Files.writeString(page, EnduranceReport.html(minutes, series, fleet.samples(), costs, checks.all()));
        print(checks, costs, output, page);
        return checks.passed() ? 0 : 1;
      }
    }
  }

  private static void progress(Map<String, Object> row, List<Integer> alive) {
    System.out.printf(Locale.ROOT, "%6.0f s  replicas %s  %s%n", ((Number) row.get("atMs")).longValue() / 1e3,
        alive, row.entrySet().stream().filter(e -> !e.getKey().equals("atMs")).map(e -> e.getKey() + "="
            + e.getValue()).reduce((a, b) -> a + "  " + b).orElse(""));
  }

  private static void print(EnduranceChecks checks, Map<Fault, Map<String, Long>> costs, Path output, Path page) {
    System.out.println();
    System.out.println("faults, and the outcomes other than served while each ran and settled:");
    costs.forEach((f, cost) -> System.out.println("  " + f + ": " + EnduranceCosts.describe(cost)));
    System.out.println("checks:");
    checks.all().forEach(c -> System.out.println("  " + c));
    System.out.println(checks.passed() ? "all checks passed" : "SOME CHECKS FAILED");
    System.out.println("the run's series: " + output + "; its report: " + page);
  }
}
