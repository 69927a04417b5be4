package io.pixquota.bench;

import java.io.File;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Scenario 5: decisions per second on one key from 2 processes, next to a trivial EVALSHA per second from the same 2
 * processes on the same Redis (the ceiling), measured before and after each limiter in the same run: on a small
 * machine the clients' CPU, not Redis, sets both figures, and it drifts.
 */
final class HotScenario {
  private HotScenario() {}

  static void run(URI redis, int runs, double seconds, int threads, Set<Limiter> limiters, File childLog)
      throws Exception {
    List<Limiter> measured = limiters.stream().filter(l -> l.usesRedis).toList();
    Map<String, List<double[]>> rows = new LinkedHashMap<>(); // per run: decisions/s, / ceiling
    rows.put("trivial EVALSHA (ceiling)", new ArrayList<>());
    for (int run = 1; run <= runs; run++) {
      // the ceiling is measured before and after every limiter; a limiter is divided by the mean of its two
      double before = decisionsPerSecond(redis, null, seconds, threads, childLog);
      List<Double> ceilings = new ArrayList<>(List.of(before));
      for (int k = 0; k < measured.size(); k++) {
        Limiter l = measured.get(Math.floorMod(run - 1 + k, measured.size())); // each run starts with another one
        double d = decisionsPerSecond(redis, l, seconds, threads, childLog);
        double after = decisionsPerSecond(redis, null, seconds, threads, childLog);
        ceilings.add(after);
        double ceiling = (before + after) / 2;
        rows.computeIfAbsent(l.label(), x -> new ArrayList<>()).add(new double[] {d, d / ceiling});
        System.err.printf(Locale.ROOT, "hot run %d %s: %.0f/s, %.3f of the ceiling %.0f/s%n", run, l.label(), d,
            d / ceiling, ceiling);
        before = after;
      }
      double[] c = ceilings.stream().mapToDouble(Double::doubleValue).toArray();
      rows.get("trivial EVALSHA (ceiling)").add(new double[] {Stats.median(c), 1});
    }
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "### Scenario 5: hot key, 2 processes x %d "
        + "threads, %.0f s counted after 2 s of warm-up, every decision a grant (a write), %d runs%n%n", threads,
        seconds, runs));
    t.append("Each limiter is divided by the mean of the trivial-EVALSHA ceilings measured just before and just after "
        + "it; the ceiling's row gives the median of all of them.\n\n");
    t.append("| limiter | decisions/s | / trivial EVALSHA ceiling |\n|---|---|---|\n");
    rows.forEach((name, r) -> t.append(String.format(Locale.ROOT, "| %s | %s | %s |%n", name,
        Stats.median(r, 0, "%.0f"), Stats.median(r, 1, "%.2f"))));
    System.out.println(t);
  }

  private static double decisionsPerSecond(URI redis, Limiter limiter, double seconds, int threads, File childLog)
      throws Exception {
    String key = "hot-" + (limiter == null ? "ceiling" : limiter.label()) + "-" + System.nanoTime();
    List<String> args = new ArrayList<>(List.of("--redis-url", redis.toString(), "--key", key, "--threads",
        Integer.toString(threads)));
    if (limiter != null) {
      args.addAll(List.of("--limiter", limiter.name()));
    }
    return DecisionRun.perSecond("peer-hot", args, seconds, childLog);
  }
}
