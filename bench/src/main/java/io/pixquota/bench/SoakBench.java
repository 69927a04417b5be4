package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.harness.ForeignConsumer;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.File;
import java.net.URI;
import java.util.ArrayList;
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

  @Option(names = "--planner-only", description = "Run the planner's settings only, not the hand-picked ones too.")
  boolean plannerOnly;

  @Option(names = "--blip-ms", defaultValue = "0",
      description = "A foreign system calls --blip-calls times back to back this long into the soak, once: the next "
          + "calls meet a 429, then nothing more (0: no blip; default ${DEFAULT-VALUE}).")
  long blipMs;

  @Option(names = "--blip-calls", defaultValue = "10", description = "Calls of the blip (default ${DEFAULT-VALUE}).")
  int blipCalls;

  @Option(names = "--cold", description = "Replicas do not warm their HTTP client before the first call.")
  boolean cold;

  private final File childLog = new File(System.getProperty("java.io.tmpdir"), "bench-soak-children.log");

  @Override
  public Integer call() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().latency(0, jitterMs).threads(128).build())) {
      System.out.printf(Locale.ROOT, "bench soak: mock BACEN token bucket 10 + 10/s, jitter 0-%d ms; %d replicas x %d "
          + "threads for %d s, their HTTP clients %s; %d cores; children log to %s%n%n", jitterMs, replicas, threads,
          seconds, cold ? "cold" : "warmed first", Runtime.getRuntime().availableProcessors(), childLog);
      System.out.println("| settings | soak: served | soak: 429 | soak: 429 in the first 5 s | soak: utilization, "
          + "whole run | soak: utilization (steady, 5 s on) | soak: lowest rate factor | cold burst 2 x 20: "
          + "429 | burst: first to last arrival at the provider | / physical limit (40 - 10) / 10 = 3.0 s | burst: "
          + "start to last answer at the replicas |");
      System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
      String[][] settings = {
          {"planner (J = " + planJitterMs + " ms)", "--plan-jitter-ms", Long.toString(planJitterMs)},
          {"hand-picked 8 / 9", "--capacity", "8", "--rate", "9"}};
      for (String[] setting : plannerOnly ? new String[][] {settings[0]} : settings) {
        List<String> extra = new ArrayList<>(List.of(setting).subList(1, setting.length));
        if (cold) {
          extra.add("--cold");
        }
        Run soak = run(mock, redis.uri(), replicas, "saturate", threads, seconds * 1000L, extra);
        Run burst = run(mock, redis.uri(), 2, "burst", 20, 0, extra);
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %.1f%% | %.1f%% | %.3f | %d | %.3f s | %.3f | %.2f s |%n",
            setting[0], soak.served, soak.tooMany, soak.tooManyEarly, 100 * soak.wholeUtilization,
            100 * soak.steadyUtilization, soak.lowestFactor, burst.tooMany, burst.spanMs / 1000, burst.spanMs / 3000,
            burst.elapsedMs / 1000);
        System.out.printf(Locale.ROOT, "%n  %s: largest lateness %.1f ms (first seen at %.1f s), largest answer time "
            + "%.1f ms (at %.1f s), most calls one replica rebooked: %.0f in the first 3 s, %.0f in all%n%n",
            setting[0], soak.worst[0], soak.worst[1], soak.worst[2], soak.worst[3], soak.worst[4], soak.worst[5]);
      }
    }
    return 0;
  }

  /**
   * @param tooManyEarly    429s in the first 5 s (a cold start's)
   * @param wholeUtilization calls served from the first arrival to the end, over the provider's 10/s for that long
   * @param lowestFactor    the lowest rate factor any replica saw (1: never cut)
   * @param worst           over the replicas: the largest lateness (ms) and the second it was first seen, the
   *                        largest answer time (ms) and its second, the most calls one replica rebooked in the first
   *                        3 s and in all
   */
  private record Run(long served, long tooMany, long tooManyEarly, double wholeUtilization, double steadyUtilization,
      double lowestFactor, double elapsedMs, double spanMs, double[] worst) {}

  private Run run(MockBacen mock, URI redis, int processes, String kind, int callers, long durationMs,
      List<String> extra) throws Exception {
    mock.reset();
    double elapsed = 0;
    double lowestFactor = 1;
    // over the replicas: the largest lateness (ms) and when first seen (s), the largest answer time and when, and
    // the rebooked calls in the first 3 s and in all (each replica's meters sampled every 20 ms)
    double[] worst = new double[6];
    try (PeerFleet fleet = PeerFleet.start(Limiter.OURS, extra, processes, mock.url(), redis, childLog)) {
      long startAt = System.currentTimeMillis() + 300;
      ForeignConsumer blip = blipMs > 0 && durationMs > 0 ? ForeignConsumer.burst(mock.url(), blipCalls,
          startAt + blipMs) : null;
      for (JsonNode result : fleet.run(startAt, kind, callers, durationMs)) {
        long start = result.get("startNanos").asLong();
        for (JsonNode call : result.get("calls")) {
          elapsed = Math.max(elapsed, (call.get(3).asLong() - start) / 1e6);
        }
        for (JsonNode sample : result.path("fleet")) {
          lowestFactor = Math.min(lowestFactor, sample.get(1).asDouble());
          if (sample.size() <= 5) {
            continue;
          }
          double at = (sample.get(0).asLong() - start) / 1e9;
          for (int i = 0; i < 2; i++) {
            if (sample.get(3 + i).asDouble() > worst[2 * i]) {
              worst[2 * i] = sample.get(3 + i).asDouble();
              worst[2 * i + 1] = at;
            }
          }
          if (at < 3) {
            worst[4] = Math.max(worst[4], sample.get(5).asDouble());
          }
          worst[5] = Math.max(worst[5], sample.get(5).asDouble());
        }
      }
      if (blip != null) {
        blip.join();
      }
    }
    Map<String, Object> stats = mock.stats("demo", true);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> all = (List<Map<String, Object>>) stats.get("events");
    List<Map<String, Object>> events = all.stream().filter(e -> !ForeignConsumer.ID.equals(e.get("replica")))
        .toList(); // ours: a blip's calls are not the fleet's
    long first = events.stream().mapToLong(e -> ((Number) e.get("atMicros")).longValue()).min().orElse(0);
    long from = first + 5_000_000L;
    long to = first + durationMs * 1000;
    long steady = events.stream().filter(e -> ((Number) e.get("status")).intValue() != 429)
        .mapToLong(e -> ((Number) e.get("atMicros")).longValue()).filter(t -> t >= from && t < to).count();
    double utilization = durationMs > 5000 ? steady / (10.0 * (to - from) / 1e6) : 0;
    long whole = events.stream().filter(e -> ((Number) e.get("status")).intValue() != 429)
        .mapToLong(e -> ((Number) e.get("atMicros")).longValue()).filter(t -> t < to).count();
    double wholeUtilization = durationMs > 0 ? whole / (10.0 * durationMs / 1000) : 0;
    long tooManyEarly = events.stream().filter(e -> ((Number) e.get("status")).intValue() == 429)
        .mapToLong(e -> ((Number) e.get("atMicros")).longValue()).filter(t -> t < from).count();
    long last = events.stream().filter(e -> ((Number) e.get("status")).intValue() != 429)
        .mapToLong(e -> ((Number) e.get("atMicros")).longValue()).max().orElse(first);
    long ourRefused = events.stream().filter(e -> ((Number) e.get("status")).intValue() == 429).count();
    return new Run(events.size() - ourRefused, ourRefused, tooManyEarly, wholeUtilization,
        utilization, lowestFactor, elapsed, (last - first) / 1000.0, worst);
  }
}
