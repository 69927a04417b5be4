package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.harness.RespConnection;
import java.io.File;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Scenario 4: uncontended acquire latency of every Redis-backed limiter, each next to a Redis PING of its own.
 *
 * <p>Why a PING of its own, in a process of its own: a PING's latency depends on what ran in the same JVM before it
 * (measured here with one shared PING: a p50 of 36 us next to our limiter alone, 25 us next to three limiters; their
 * code warms and pollutes the same Redisson and Netty paths). A limiter's ratio then depended on which limiters shared
 * the run. So each limiter runs in a JVM of its own ({@link LatencyChild}), in PING-then-acquire pairs, and its ratio
 * is taken against the PINGs of its own pairs: the same measurement whoever else is measured. The children run one
 * after another, their order rotating from run to run.
 */
final class LatencyScenario {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SCRIPT_STATS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+),usec=(\\d+)");

  private LatencyScenario() {}

  static void run(URI redis, int runs, int samples, Set<Limiter> limiters, File childLog) throws Exception {
    List<Limiter> measured = limiters.stream().filter(l -> l.usesRedis).toList();
    // per limiter, per run: p50 us, p99 us, its PING p50 us, its PING p99 us, p50 / PING p50, p99 / PING p99,
    // the scripts' own time in Redis (INFO commandstats: EVAL and EVALSHA, us per call), bytes allocated per acquire
    // on the calling thread
    Map<String, List<double[]>> rows = new LinkedHashMap<>();
    measured.forEach(l -> rows.put(l.label(), new ArrayList<>()));
    try (RespConnection stats = RespConnection.open(redis.getHost(), redis.getPort())) {
      for (int run = 0; run < runs; run++) {
        for (int k = 0; k < measured.size(); k++) {
          Limiter l = measured.get((run + k) % measured.size());
          stats.call("CONFIG", "RESETSTAT");
          JsonNode r = child(redis, l, samples, childLog);
          double p50 = r.get("p50").asDouble();
          double p99 = r.get("p99").asDouble();
          double ping50 = r.get("pingP50").asDouble();
          double ping99 = r.get("pingP99").asDouble();
          rows.get(l.label()).add(new double[] {p50 / 1e3, p99 / 1e3, ping50 / 1e3, ping99 / 1e3, p50 / ping50,
              p99 / ping99, scriptMicrosPerCall((String) stats.call("INFO", "commandstats")),
              r.get("bytesPerAcquire").asDouble()});
        }
      }
    }
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "### Scenario 4: uncontended acquire latency, "
        + "%d samples per run, each limiter in a JVM of its own next to a PING of its own, %d runs%n%n", samples,
        runs));
    t.append("| limiter | p50 (us) | p99 (us) | its PING p50 / p99 (us) | p50 / PING p50 | p99 / PING p99 | "
        + "script in Redis (us per EVAL/EVALSHA) | bytes per acquire (calling thread) |\n"
        + "|---|---|---|---|---|---|---|---|\n");
    rows.forEach((name, r) -> t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s / %s | %s | %s | %s | %s |%n",
        name, Stats.median(r, 0, "%.0f"), Stats.median(r, 1, "%.0f"), Stats.median(r, 2, "%.0f"),
        Stats.median(r, 3, "%.0f"), Stats.median(r, 4, "%.2f"), Stats.median(r, 5, "%.2f"),
        Stats.median(r, 6, "%.1f"), Stats.median(r, 7, "%.0f"))));
    // run by run: the gate compares limiters within one run
    t.append("\n| run |");
    rows.keySet().forEach(name -> t.append(" ").append(name).append(": p50 / PING, p99 / PING |"));
    t.append("\n|---|").append("---|".repeat(rows.size())).append('\n');
    for (int run = 0; run < runs; run++) {
      t.append("| ").append(run + 1).append(" |");
      for (List<double[]> r : rows.values()) {
        t.append(String.format(Locale.ROOT, " %.2f, %.2f |", r.get(run)[4], r.get(run)[5]));
      }
      t.append('\n');
    }
    System.out.println(t);
  }

  /**
   * The scripts' own time inside Redis since the last CONFIG RESETSTAT: EVAL's and EVALSHA's usec over their calls
   * (a limiter without a script: 0).
   */
  static double scriptMicrosPerCall(String commandstats) {
    long calls = 0;
    long usec = 0;
    Matcher m = SCRIPT_STATS.matcher(commandstats);
    while (m.find()) {
      calls += Long.parseLong(m.group(1));
      usec += Long.parseLong(m.group(2));
    }
    return calls == 0 ? 0 : (double) usec / calls;
  }

  private static JsonNode child(URI redis, Limiter limiter, int samples, File childLog) throws Exception {
    try (ReplicaProcess child = ReplicaProcess.start(BenchMain.class, List.of("latency-child", "--redis-url",
        redis.toString(), "--limiter", limiter.name(), "--samples", Integer.toString(samples)),
        ProcessBuilder.Redirect.appendTo(childLog))) {
      JsonNode result = JSON.readTree(child.result(line -> { }));
      if (child.finish() != 0) {
        throw new IllegalStateException("latency-child " + limiter + " failed; see " + childLog);
      }
      return result;
    }
  }
}
