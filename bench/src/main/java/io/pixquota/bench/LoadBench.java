package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.File;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Load: replica JVMs x threads calling back to back through one shared bucket for a while, with a short max wait
 * so that demand far exceeds the rate; reports threads and heap after GC at the start and the end of each JVM, and
 * the mock's audit (0 x 429, most accepted in any 1 s within the provider's own bound).
 */
@Command(name = "load", mixinStandardHelpOptions = true,
    description = "Overload through one shared bucket: leaks, memory and over-admission, judged by the mock.")
final class LoadBench implements Callable<Integer> {
  @Option(names = "--replicas", defaultValue = "2", description = "Replica JVMs (default ${DEFAULT-VALUE}).")
  int replicas;

  @Option(names = "--threads", defaultValue = "8", description = "Threads per replica (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--seconds", defaultValue = "60", description = "Length (default ${DEFAULT-VALUE}).")
  int seconds;

  @Option(names = "--max-wait-ms", defaultValue = "50",
      description = "Max wait for a slot: refused callers come straight back (default ${DEFAULT-VALUE}).")
  long maxWaitMs;

  private final File childLog = new File(System.getProperty("java.io.tmpdir"), "bench-load-children.log");

  @Override
  public Integer call() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      long offered = 0;
      long admitted = 0;
      long refusedByBucket = 0;
      StringBuilder jvm = new StringBuilder();
      try (PeerFleet fleet = PeerFleet.start(Limiter.OURS, List.of("--capacity", "8", "--rate", "9",
          "--max-wait-ms", Long.toString(maxWaitMs)), replicas, mock.url(), redis.uri(), childLog)) {
        for (JsonNode r : fleet.run(System.currentTimeMillis() + 300, "saturate", threads, seconds * 1000L)) {
          JsonNode statuses = r.get("statuses");
          for (Map.Entry<String, JsonNode> s : statuses.properties()) {
            offered += s.getValue().asLong();
          }
          admitted += statuses.path("200").asLong();
          refusedByBucket += statuses.path(Integer.toString(PeerReplica.THROTTLED)).asLong();
          jvm.append(String.format(Locale.ROOT, "| r%s | %d -> %d | %.1f -> %.1f MB |%n", r.get("replica").asText(),
              r.get("jvmBefore").get("threads").asInt(), r.get("jvmAfter").get("threads").asInt(),
              r.get("jvmBefore").get("heapAfterGcBytes").asLong() / 1e6,
              r.get("jvmAfter").get("heapAfterGcBytes").asLong() / 1e6));
        }
      }
      Map<String, Object> stats = mock.stats("demo", false);
      System.out.printf(Locale.ROOT, "bench load: %d replicas x %d threads for %d s, bucket 8 + 9/s, max wait %d ms; "
          + "mock 10 + 10/s; %d cores%n%n", replicas, threads, seconds, maxWaitMs,
          Runtime.getRuntime().availableProcessors());
      System.out.println("| calls offered | offered per second / bucket rate | admitted "
          + "| refused by our bucket (typed) "
          + "| provider 429 | provider: most accepted in any 1 s (its own bound: 10 + 10) |");
      System.out.println("|---|---|---|---|---|---|");
      System.out.printf(Locale.ROOT, "| %d | %.1f | %d | %d | %s | %s |%n%n", offered, offered / (double) seconds / 9,
          admitted, refusedByBucket, stats.get("refused"), stats.get("maxInWindow"));
      System.out.println("| replica | live threads, start -> end | heap after GC, start -> end |");
      System.out.println("|---|---|---|");
      System.out.print(jvm);
    }
    return 0;
  }
}
