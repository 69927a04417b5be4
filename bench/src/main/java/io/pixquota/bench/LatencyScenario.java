package io.pixquota.bench;

import io.pixquota.harness.Redissons;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.api.redisnode.RedisSingle;

/**
 * Scenario 4: uncontended acquire latency of every Redis-backed limiter next to a Redis PING, one process, samples
 * interleaved one by one (PING, then each limiter, the limiters' order rotating from round to round) so that the
 * machine's noise, and any cost of coming right after another call, falls on all of them alike.
 */
final class LatencyScenario {
  private LatencyScenario() {}

  static void run(URI redis, int runs, int samples, Set<Limiter> limiters) throws Exception {
    List<Limiter> measured = limiters.stream().filter(l -> l.usesRedis).toList();
    Map<String, List<double[]>> rows = new LinkedHashMap<>(); // per run: p50 us, p99 us, p50 / PING, p99 / PING
    for (int run = 1; run <= runs; run++) {
      RedissonClient redisson = Redissons.defaults(redis.toString());
      try {
        RedisSingle node = redisson.getRedisNodes(RedisNodes.SINGLE);
        List<Limiter.Gate> gates = new ArrayList<>();
        for (Limiter l : measured) { // limits that grant every decision: nobody waits
          gates.add(l.open(redisson, "latency-" + run + "-" + System.nanoTime(), 1_000_000_000, 1_000_000_000));
        }
        long[] ping = new long[samples];
        long[][] acquire = new long[gates.size()][samples];
        for (int i = -2000; i < samples; i++) { // the first 2000 rounds warm every path up
          long t0 = System.nanoTime();
          node.getInstance().ping();
          long t1 = System.nanoTime();
          if (i >= 0) {
            ping[i] = t1 - t0;
          }
          for (int k = 0; k < gates.size(); k++) {
            // each round starts with a different limiter: no limiter always sits right after the PING
            int g = Math.floorMod(i + k, gates.size());
            long a0 = System.nanoTime();
            if (!gates.get(g).tryTake()) {
              throw new IllegalStateException(measured.get(g).label() + " refused although its limit is 1e9/s");
            }
            long a1 = System.nanoTime();
            if (i >= 0) {
              acquire[g][i] = a1 - a0;
            }
          }
        }
        Percentiles p = Percentiles.of(ping);
        rows.computeIfAbsent("Redis PING (baseline)", k -> new ArrayList<>())
            .add(new double[] {p.at(50) / 1e3, p.at(99) / 1e3, 1, 1});
        for (int g = 0; g < gates.size(); g++) {
          Percentiles a = Percentiles.of(acquire[g]);
          rows.computeIfAbsent(measured.get(g).label(), k -> new ArrayList<>()).add(new double[] {a.at(50) / 1e3,
              a.at(99) / 1e3, (double) a.at(50) / p.at(50), (double) a.at(99) / p.at(99)});
        }
      } finally {
        redisson.shutdown();
      }
    }
    StringBuilder t = new StringBuilder(String.format(Locale.ROOT, "### Scenario 4: uncontended acquire latency, "
        + "%d samples of each per run, interleaved, %d runs%n%n", samples, runs));
    t.append("| limiter | p50 (us) | p99 (us) | p50 / PING p50 | p99 / PING p99 |\n|---|---|---|---|---|\n");
    rows.forEach((name, r) -> t.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s |%n", name,
        Stats.median(r, 0, "%.0f"), Stats.median(r, 1, "%.0f"), Stats.median(r, 2, "%.2f"),
        Stats.median(r, 3, "%.2f"))));
    System.out.println(t);
  }
}
