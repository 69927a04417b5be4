package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.demo.ReplicaProcesses;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.PrivateRedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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

  @Override
  public Integer call() throws Exception {
    ObjectMapper json = new ObjectMapper();
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      List<Process> children = ReplicaProcesses.start(replicas, List.of("--bacen-url", mock.url().toString(),
          "--redis-url", redis.uri().toString(), "--calls", Integer.toString(threads), "--duration-ms",
          Long.toString(seconds * 1000L), "--max-wait-ms", Long.toString(maxWaitMs), "--bucket-name", "load"),
          ProcessBuilder.Redirect.DISCARD);
      long offered = 0;
      long admitted = 0;
      long refusedByBucket = 0;
      StringBuilder jvm = new StringBuilder();
      for (Process child : children) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8))) {
          String line;
          while ((line = out.readLine()) != null) {
            if (line.startsWith("RESULT ")) {
              JsonNode r = json.readTree(line.substring(7));
              for (JsonNode c : r.get("calls")) {
                offered++;
                admitted += c.get("outcome").asText().equals("served") ? 1 : 0;
                refusedByBucket += c.get("outcome").asText().equals("throttled") ? 1 : 0;
              }
              jvm.append(String.format(Locale.ROOT, "| %s | %d -> %d | %.1f -> %.1f MB |%n", r.get("replica").asText(),
                  r.get("jvmBefore").get("threads").asInt(), r.get("jvmAfter").get("threads").asInt(),
                  r.get("jvmBefore").get("heapAfterGcBytes").asLong() / 1e6,
                  r.get("jvmAfter").get("heapAfterGcBytes").asLong() / 1e6));
            }
          }
        }
        if (child.waitFor() != 0) {
          throw new IllegalStateException("a replica failed");
        }
      }
      Map<String, Object> stats = mock.stats("demo", false);
      System.out.printf(Locale.ROOT, "bench load: %d replicas x %d threads for %d s, bucket 8 + 9/s, max wait %d ms; "
          + "mock 10 + 10/s; %d cores%n%n", replicas, threads, seconds, maxWaitMs,
          Runtime.getRuntime().availableProcessors());
      System.out.println("| calls offered | offered per second / bucket rate | admitted | refused by our bucket (typed) "
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
