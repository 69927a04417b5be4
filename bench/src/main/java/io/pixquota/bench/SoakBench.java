package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.File;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The quota planner's live proof: replica JVMs at saturating demand against the mock BACEN (token bucket 10 + 10/s,
 * with jitter), once with the planner's settings (read from GET /policies/pix) and once with the hand-picked 8 / 9,
 * in the same run; then a cold burst of 2 x 20 with each. Every replica is the SDK's interceptor over the shared
 * Redis bucket ({@code peer-replica --limiter OURS}). Prints a markdown table.
 */
@Command(name = "soak", mixinStandardHelpOptions = true,
    description = "Planner vs hand-picked settings: saturating soak and cold burst against the mock BACEN.")
final class SoakBench implements Callable<Integer> {
  @Option(names = "--replicas", defaultValue = "4",
      description = "Replica JVMs in the soak (default ${DEFAULT-VALUE}).")
  int replicas;

  @Option(names = "--threads", defaultValue = "8",
      description = "Caller threads per replica (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--seconds", defaultValue = "60", description = "Soak length (default ${DEFAULT-VALUE}).")
  int seconds;

  @Option(names = "--jitter-ms", defaultValue = "30", description = "The mock's jitter (default ${DEFAULT-VALUE}).")
  long jitterMs;

  @Option(names = "--plan-jitter-ms", defaultValue = "100",
      description = "The J given to the planner (default ${DEFAULT-VALUE}).")
  long planJitterMs;

  private final File childLog = new File(System.getProperty("java.io.tmpdir"), "bench-soak-children.log");

  @Override
  public Integer call() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().latency(0, jitterMs).threads(128).build())) {
      System.out.printf(Locale.ROOT, "bench soak: mock BACEN token bucket 10 + 10/s, jitter 0-%d ms; %d replicas x %d "
          + "threads for %d s; %d cores; children log to %s%n%n", jitterMs, replicas, threads, seconds,
          Runtime.getRuntime().availableProcessors(), childLog);
      System.out.println("| settings | soak: served | soak: 429 | soak: utilization (steady, 5 s on) "
          + "| cold burst 2 x 20: "
          + "429 | burst: first to last arrival at the provider | / physical limit (40 - 10) / 10 = 3.0 s | burst: "
          + "start to last answer at the replicas |");
      System.out.println("|---|---|---|---|---|---|---|---|");
      String[][] settings = {
          {"planner (J = " + planJitterMs + " ms)", "--plan-jitter-ms", Long.toString(planJitterMs)},
          {"hand-picked 8 / 9", "--capacity", "8", "--rate", "9"}};
      for (String[] setting : settings) {
        List<String> extra = List.of(setting).subList(1, setting.length);
        Run soak = run(mock, redis.uri(), replicas, "saturate", threads, seconds * 1000L, extra);
        Run burst = run(mock, redis.uri(), 2, "burst", 20, 0, extra);
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %.1f%% | %d | %.3f s | %.3f | %.2f s |%n", setting[0],
            soak.served, soak.tooMany, 100 * soak.steadyUtilization, burst.tooMany, burst.spanMs / 1000,
            burst.spanMs / 3000, burst.elapsedMs / 1000);
      }
    }
    return 0;
  }

  private record Run(long served, long tooMany, double steadyUtilization, double elapsedMs, double spanMs) {}

  private Run run(MockBacen mock, URI redis, int processes, String kind, int callers, long durationMs,
      List<String> extra) throws Exception {
    mock.reset();
    double elapsed = 0;
    try (PeerFleet fleet = PeerFleet.start(Limiter.OURS, extra, processes, mock.url(), redis, childLog)) {
      for (JsonNode result : fleet.run(System.currentTimeMillis() + 300, kind, callers, durationMs)) {
        long start = result.get("startNanos").asLong();
        for (JsonNode call : result.get("calls")) {
          elapsed = Math.max(elapsed, (call.get(3).asLong() - start) / 1e6);
        }
      }
    }
    Map<String, Object> stats = mock.stats("demo", true);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> events = (List<Map<String, Object>>) stats.get("events");
    long first = events.stream().mapToLong(e -> ((Number) e.get("atMicros")).longValue()).min().orElse(0);
    long from = first + 5_000_000L;
    long to = first + durationMs * 1000;
    long steady = events.stream().filter(e -> ((Number) e.get("status")).intValue() != 429)
        .mapToLong(e -> ((Number) e.get("atMicros")).longValue()).filter(t -> t >= from && t < to).count();
    double utilization = durationMs > 5000 ? steady / (10.0 * (to - from) / 1e6) : 0;
    long last = events.stream().filter(e -> ((Number) e.get("status")).intValue() != 429)
        .mapToLong(e -> ((Number) e.get("atMicros")).longValue()).max().orElse(first);
    return new Run((Long) stats.get("accepted"), (Long) stats.get("refused"), utilization, elapsed,
        (last - first) / 1000.0);
  }
}
