package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import java.io.File;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code --calls} PIX status checks queued at once in one client JVM, through the SDK's blocking path (a platform
 * thread per call), its async path ({@code getPixAsync}) and, on Java 21+, the blocking path from virtual threads;
 * each mode in a JVM of its own ({@link AsyncReplica}), against one mock BACEN (a token bucket of
 * {@code --provider-rate} per second and as much burst) and a bucket a little under it. Prints one table.
 */
@Command(name = "async", mixinStandardHelpOptions = true,
    description = "Many status checks queued at once: blocking threads vs async vs virtual threads.")
final class AsyncBench implements Callable<Integer> {
  @Option(names = "--calls", defaultValue = "2000", description = "Checks queued at once (default ${DEFAULT-VALUE}).")
  int calls;

  @Option(names = "--provider-rate", defaultValue = "50",
      description = "The mock's bucket: this burst and this many per second (default ${DEFAULT-VALUE}).")
  int providerRate;

  @Option(names = "--idle-timeout-seconds", defaultValue = "5", description = "The mock closes a connection idle "
      + "this long, as a gateway does; 0: the JDK server's 30 s (default ${DEFAULT-VALUE}).")
  int idleTimeoutSeconds;

  @Option(names = "--latency-ms", defaultValue = "20",
      description = "The mock's answer time: calls in flight at the provider (default ${DEFAULT-VALUE}).")
  long latencyMs;

  @Option(names = "--max-wait-ms", defaultValue = "120000",
      description = "The client's max wait for a slot (default ${DEFAULT-VALUE}).")
  long maxWaitMs;

  @Option(names = "--modes", split = ",", defaultValue = "SYNC,ASYNC,VIRTUAL",
      description = "Which to run: SYNC, ASYNC, VIRTUAL (Java 21+) through PixClient; RESTCLIENT (Spring's RestClient "
          + "on the JDK client, a virtual thread per call on Java 21+), WEBCLIENT (reactor-netty) through the SDK's "
          + "adapters (default ${DEFAULT-VALUE}).")
  List<AsyncReplica.Mode> modes;

  private final ObjectMapper json = new ObjectMapper();
  private final File childLog = new File(System.getProperty("java.io.tmpdir"), "bench-async-children.log");

  @Override
  public Integer call() throws Exception {
    double capacity = Math.max(1, providerRate / 5.0);
    double rate = providerRate * 0.9;
    System.out.printf(Locale.ROOT, "bench async: %d checks queued at once; mock bucket %d + %d/s, answers in %d ms, "
        + "closing connections idle %d s; our bucket %.0f + %.0f/s, max wait %d ms; Java %s, %d cores; children log "
        + "to %s%n%n", calls, providerRate, providerRate, latencyMs, idleTimeoutSeconds, capacity, rate, maxWaitMs,
        Runtime.version(), Runtime.getRuntime().availableProcessors(), childLog);
    System.out.println("| mode | threads before | threads at the peak | connections to the provider at most | in "
        + "flight at the provider at most | served | 429 | other failures | elapsed | left in the order queued | "
        + "left in the order asked | rebooked (late) | lateness max | virtual threads pinned |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    List<String> census = new ArrayList<>();
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder()
            .policy(QuotaPolicy.bucket(providerRate, providerRate, 1000)).idleTimeoutSeconds(idleTimeoutSeconds)
            .latency(latencyMs, 0).build())) {
      int id = 0;
      for (AsyncReplica.Mode mode : modes) {
        if (mode == AsyncReplica.Mode.VIRTUAL && Runtime.version().feature() < 21) {
          System.out.printf(Locale.ROOT, "| VIRTUAL | not run: Java %s has no virtual threads (run this bench on "
              + "a JDK 21+) | | | | | | | | | | | | |%n", Runtime.version());
          continue;
        }
        mock.reset();
        id++;
        List<String> args = new ArrayList<>(List.of("async-replica", "--mode", mode.name(), "--calls",
            Integer.toString(calls), "--bacen-url", mock.url().toString(), "--redis-url", redis.uri().toString(),
            "--bucket-name", "async-" + mode.name().toLowerCase(Locale.ROOT) + "-" + System.nanoTime(),
            "--capacity", Double.toString(capacity), "--rate", Double.toString(rate), "--replica-id",
            Integer.toString(id), "--max-wait-ms", Long.toString(maxWaitMs)));
        JsonNode r;
        try (ReplicaProcess child = ReplicaProcess.start(BenchMain.class, args,
            ProcessBuilder.Redirect.appendTo(childLog))) {
          child.awaitReady();
          child.go(System.currentTimeMillis() + 500);
          r = json.readTree(child.result(line -> { }));
          child.finish();
        }
        Map<String, Object> stats = mock.stats("demo", false);
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %s | %d | %d (mock: %s refused) | %d | %.1f s | %.2f%% "
            + "| %.2f%% | %.0f | %.0f ms | %s |%n", mode, r.get("threadsBefore").asInt(), r.get("threadsPeak").asInt(),
            r.get("connectionsPeak").asInt(), mock.inFlightStats("demo").get("mostSeen"), r.get("served").asInt(),
            r.get("tooManyRequests").asInt(), stats.get("refused"), r.get("failed").asInt(),
            r.get("elapsedMs").asDouble() / 1000, 100 * inOrder(r.get("leftAt"), null),
            100 * inOrder(r.get("leftAt"), r.get("askedAt")), r.get("rebooked").asDouble(),
            r.get("latenessMaxMs").asDouble(), r.get("pinned").asText());
        if (r.get("failed").asInt() > 0) {
          census.add(mode + ": failures " + r.get("failures"));
        }
        census.add(mode + ": threads at the start " + r.get("threadsAtStart") + "; at the end "
            + r.get("threadsAtEnd"));
      }
    }
    System.out.println();
    census.forEach(System.out::println);
    return 0;
  }

  /**
   * Of the calls in the order they were queued ({@code askedAt} null) or asked (by {@code askedAt}: when each call's
   * thread called the client), the share of consecutive pairs that left in that order (the later one not before the
   * earlier, within 1 ms: calls of one burst leave at one instant).
   */
  static double inOrder(JsonNode leftAt, JsonNode askedAt) {
    List<long[]> calls = new ArrayList<>(); // {order key, index, left at}
    for (Map.Entry<String, JsonNode> e : leftAt.properties()) {
      int call = Integer.parseInt(e.getKey());
      calls.add(new long[] {askedAt == null ? call : askedAt.get(e.getKey()).asLong(), call, e.getValue().asLong()});
    }
    calls.sort(Comparator.<long[]>comparingLong(c -> c[0]).thenComparingLong(c -> c[1]));
    long pairs = 0;
    long ordered = 0;
    for (int i = 1; i < calls.size(); i++) {
      pairs++;
      if (calls.get(i)[2] >= calls.get(i - 1)[2] - 1_000_000) {
        ordered++;
      }
    }
    return pairs == 0 ? 1 : (double) ordered / pairs;
  }
}
