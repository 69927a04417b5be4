package io.pixquota.bench;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RedisCluster;
import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Decisions per second over many buckets on one Redis node and on a 3-master Redis Cluster, in the same run, each
 * next to a trivial script's ceiling on the same topology and from the same 2 client processes. On a small machine
 * the clients and every server share the cores: the ratios, not the absolute figures, are the result.
 */
@Command(name = "scaleout", mixinStandardHelpOptions = true,
    description = "Many buckets: one Redis node vs a 3-master cluster, each next to a trivial-script ceiling.")
final class ScaleOutBench implements Callable<Integer> {
  @Option(names = "--runs", defaultValue = "3", description = "Runs (default ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--keys", defaultValue = "64", description = "Buckets (default ${DEFAULT-VALUE}).")
  int keys;

  @Option(names = "--threads", defaultValue = "16", description = "Threads per process (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(names = "--seconds", defaultValue = "5", description = "Counted seconds (default ${DEFAULT-VALUE}).")
  double seconds;

  private final File childLog = new File(System.getProperty("java.io.tmpdir"), "bench-scaleout-children.log");

  @Override
  public Integer call() throws Exception {
    Map<String, List<double[]>> rows = new LinkedHashMap<>(); // per run: ours, ceiling, ours / ceiling
    try (PrivateRedisServer single = PrivateRedisServer.start(); RedisCluster cluster = RedisCluster.start(3)) {
      System.out.printf(Locale.ROOT, "bench scaleout: %d buckets, 2 processes x %d threads, %.0f s counted after 2 s "
          + "of warm-up, %d runs, %d cores; children log to %s%n%n", keys, threads, seconds, runs,
          Runtime.getRuntime().availableProcessors(), childLog);
      Map<String, String> topologies = new LinkedHashMap<>();
      topologies.put("one node", single.uri().toString());
      topologies.put("cluster, 3 masters", cluster.url());
      for (int run = 1; run <= runs; run++) {
        for (Map.Entry<String, String> t : topologies.entrySet()) {
          double before = decisions(t.getValue(), true);
          double ours = decisions(t.getValue(), false);
          double after = decisions(t.getValue(), true);
          double ceiling = (before + after) / 2;
          rows.computeIfAbsent(t.getKey(), k -> new ArrayList<>()).add(new double[] {ours, ceiling, ours / ceiling});
          System.err.printf(Locale.ROOT, "scaleout run %d, %s: ours %.0f/s, ceiling %.0f/s%n", run, t.getKey(), ours,
              ceiling);
        }
      }
    }
    StringBuilder t = new StringBuilder("| topology | our bucket, decisions/s | trivial script, decisions/s | ours / "
        + "trivial |\n|---|---|---|---|\n");
    rows.forEach((name, r) -> t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", name,
        Stats.median(r, 0, "%.0f"), Stats.median(r, 1, "%.0f"), Stats.median(r, 2, "%.2f"))));
    List<double[]> one = rows.get("one node");
    List<double[]> three = rows.get("cluster, 3 masters");
    List<double[]> ratios = new ArrayList<>();
    for (int i = 0; i < one.size(); i++) {
      ratios.add(new double[] {three.get(i)[0] / one.get(i)[0], three.get(i)[1] / one.get(i)[1]});
    }
    t.append(String.format(Locale.ROOT, "%nCluster / one node: ours %s, trivial script %s%n",
        Stats.median(ratios, 0, "%.2f"), Stats.median(ratios, 1, "%.2f")));
    System.out.println(t);
    return 0;
  }

  private double decisions(String url, boolean trivial) throws Exception {
    List<String> args = new ArrayList<>(List.of("--redis-url", url, "--keys", Integer.toString(keys), "--threads",
        Integer.toString(threads)));
    if (trivial) {
      args.add("--trivial");
    }
    return DecisionRun.perSecond("spread-child", args, seconds, childLog);
  }
}
