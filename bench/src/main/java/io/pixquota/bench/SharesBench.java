package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.harness.Sleep;
import io.pixquota.harness.RespConnection;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.throttle.Priority;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Issue 46's scenario: three services share one quota (the mock BACEN's token bucket of 10 + 10/s; our bucket
 * 8 + 9/s), two replicas each ({@link SharesService}: each its own Redisson client, bucket object, throttle and
 * PixClient, in this JVM), with guarantees of 5, 3 and 1 per second: the merchant API storms (20 calls/s offered by
 * 32 callers, blocking, or async), checkout asks 3 calls/s and reconciliation 1 call/s, evenly. Or checkout alone,
 * storming. With {@code --shares false}, the same on a bucket without shares (first come, first served). Prints one
 * row per service: served, refused at the max wait (10 s), 429s, waits, and the quota used, counted at the mock.
 */
@Command(name = "shares", mixinStandardHelpOptions = true,
    description = "Three services on one quota, one storming: guaranteed shares that lend what they leave.")
final class SharesBench implements Callable<Integer> {
  /** What runs. */
  enum Scenario { STORM, ALONE }

  @Option(names = "--scenario", defaultValue = "STORM",
      description = "STORM: the merchant API storms beside checkout and reconciliation; ALONE: checkout storms alone "
          + "(default ${DEFAULT-VALUE}).")
  Scenario scenario;

  @Option(names = "--seconds", defaultValue = "60", description = "Length of the run (default ${DEFAULT-VALUE}).")
  int seconds;

  @Option(names = "--shares", defaultValue = "true", arity = "1",
      description = "false: the same bucket without shares, first come, first served (default ${DEFAULT-VALUE}).")
  boolean shares;

  @Option(names = "--storm-retry", defaultValue = "0", description = "The storming service's callers, this many in "
      + "all (half a replica), each calling again at once when its call is refused, back to back (0, the default: "
      + "20 arrivals a second instead).")
  int stormRetry;

  @Option(names = "--storm-async", description = "The storming service calls getPixAsync (16 outstanding per "
      + "replica) instead of 16 blocking callers per replica.")
  boolean stormAsync;

  @Option(names = "--svg", description = "Also draw each served call's wait against when it asked, to this file.")
  java.io.File svg;

  @Option(names = "--batch-reconciliation", description = "Reconciliation's calls in the BATCH class (a person's "
      + "calls go first; a batch call takes only a slot that is free now).")
  boolean batchReconciliation;

  private volatile boolean stopped;

  static final Map<String, Double> GUARANTEES = Map.of("checkout", 5.0, "merchant-api", 3.0,
      "reconciliation", 1.0, "*", 0.0);

  @Override
  public Integer call() throws Exception {
    String storming = scenario == Scenario.ALONE ? "checkout" : "merchant-api";
    System.out.printf(Locale.ROOT, "bench shares: %s, %d s; the mock 10 + 10/s, our bucket 8 + 9/s %s; %s storms "
        + "(%s)%s; Java %s, %d cores%n%n", scenario, seconds, shares ? "with shares checkout 5, "
        + "merchant-api 3, reconciliation 1" : "without shares", storming, stormRetry > 0 ? stormRetry + " callers "
        + "that call again at once when refused, in 2 processes of their own at the lowest CPU priority"
        : stormAsync ? "20/s offered, async, 16 outstanding a replica" : "20/s offered, 32 blocking callers",
        batchReconciliation ? "; reconciliation BATCH" : "", Runtime.version(),
        Runtime.getRuntime().availableProcessors());
    String bucket = "shares-" + System.nanoTime();
    List<SharesService> services = new ArrayList<>();
    List<ReplicaProcess> stormers = new ArrayList<>();
    ScheduledExecutorService arrivals = Executors.newScheduledThreadPool(4);
    ExecutorService callers = Executors.newCachedThreadPool();
    List<CompletableFuture<?>> asyncCalls = new ArrayList<>();
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(10, 10, 1000))
            .latency(20, 0).build())) {
      String[] flows = scenario == Scenario.ALONE ? new String[] {"checkout"}
          : new String[] {"checkout", "merchant-api", "reconciliation"};
      for (int s = 0; s < flows.length; s++) {
        for (int r = 1; r <= 2; r++) {
          if (flows[s].equals(storming) && stormRetry > 0) { // the storming service's own hosts: their CPU theirs
            stormers.add(ReplicaProcess.startNice(BenchMain.class, List.of("shares-storm-replica", "--pix-url",
                mock.url().resolve("/api/v2/").toString(), "--redis-url", redis.uri().toString(), "--bucket", bucket,
                "--code", Integer.toString(10 * (s + 1) + r), "--callers",
                Integer.toString(stormRetry / 2 + (r == 2 ? stormRetry % 2 : 0)), "--seconds",
                Integer.toString(seconds), "--shares", Boolean.toString(shares)), ProcessBuilder.Redirect.INHERIT));
          } else {
            services.add(new SharesService(flows[s], 10 * (s + 1) + r, mock.url().resolve("/api/v2/"),
                redis.uri().toString(), bucket, shares ? GUARANTEES : null));
          }
        }
      }
      for (SharesService s : services) {
        s.warmUp();
      }
      for (ReplicaProcess p : stormers) {
        p.awaitReady();
      }
      Thread.sleep(1_500); // the bucket full again after the warm-up calls
      mock.reset();
      RespConnection census = RespConnection.open(redis.uri().getHost(), redis.uri().getPort());
      long scriptsBefore = census.scriptCalls();
      long scriptMicrosBefore = census.scriptMicros();
      long startEpochMs = System.currentTimeMillis() + 200;
      long start = Sleep.nanoTimeAt(startEpochMs);
      for (ReplicaProcess p : stormers) {
        p.go(startEpochMs);
      }
      Sleep.until(start);
      for (int i = 0; i < services.size(); i++) {
        SharesService s = services.get(i);
        boolean odd = i % 2 == 1; // the second replica of a service: half a period later
        if (s.flow.equals(storming)) {
          storm(s, arrivals, callers, asyncCalls);
        } else {
          double perSecond = s.flow.equals("checkout") ? 1.5 : 0.5; // each replica: half the service's rate
          long every = (long) (1_000_000 / perSecond);
          Priority p = s.flow.equals("reconciliation") && batchReconciliation ? Priority.BATCH : Priority.INTERACTIVE;
          arrivals.scheduleAtFixedRate(() -> callers.execute(() -> s.call(p)), odd ? every / 2 : 0, every,
              TimeUnit.MICROSECONDS);
        }
      }
      Thread.sleep(seconds * 1_000L);
      arrivals.shutdownNow();
      stopped = true;
      long scripts = census.scriptCalls() - scriptsBefore;
      long scriptMicros = census.scriptMicros() - scriptMicrosBefore;
      double wallSeconds = (System.nanoTime() - start) / 1e9;
      callers.shutdown();
      callers.awaitTermination(30, TimeUnit.SECONDS);
      synchronized (asyncCalls) {
        CompletableFuture.allOf(asyncCalls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
      }
      List<Tally> tallies = new ArrayList<>();
      services.forEach(s -> tallies.add(Tally.of(s)));
      for (ReplicaProcess p : stormers) {
        tallies.add(Tally.of(p.result(line -> { }), storming, start));
      }
      print(tallies, start, mock.stats("demo", false));
      long refused = tallies.stream().mapToLong(Tally::refused).sum();
      long served = tallies.stream().mapToLong(Tally::served).sum();
      System.out.printf(Locale.ROOT, "Redis (INFO commandstats, the run): %d script runs, %.1f us each, %.1f s of "
          + "script time in %.1f s of wall time (%.1f%%); %d calls refused, %d served: %.4f script runs per refused "
          + "call (runs beyond one a served call)%n", scripts, scripts == 0 ? 0 : (double) scriptMicros / scripts,
          scriptMicros / 1e6, wallSeconds, 100 * scriptMicros / 1e6 / wallSeconds, refused, served,
          refused == 0 ? 0 : Math.max(0, scripts - served) / (double) refused);
      census.close();
    } finally {
      arrivals.shutdownNow();
      callers.shutdownNow();
      services.forEach(SharesService::close);
      stormers.forEach(ReplicaProcess::close);
    }
    return 0;
  }

  /**
   * 10 calls/s offered to this replica: 16 blocking callers take them (an arrival none can take is dropped), or, with
   * {@code --storm-async}, getPixAsync with at most 16 outstanding.
   */
  private void storm(SharesService s, ScheduledExecutorService arrivals, ExecutorService callers,
      List<CompletableFuture<?>> asyncCalls) {
    BlockingQueue<Integer> line = new ArrayBlockingQueue<>(16);
    Semaphore outstanding = new Semaphore(16);
    arrivals.scheduleAtFixedRate(() -> {
      if (stormAsync) {
        if (outstanding.tryAcquire()) {
          CompletableFuture<?> f = s.callAsync(Priority.INTERACTIVE).whenComplete((v, e) -> outstanding.release());
          synchronized (asyncCalls) {
            asyncCalls.add(f);
          }
        } else {
          s.dropped.increment();
        }
      } else if (!line.offer(1)) {
        s.dropped.increment();
      }
    }, 0, 100, TimeUnit.MILLISECONDS);
    for (int i = 0; !stormAsync && i < 16; i++) {
      callers.execute(() -> {
        try {
          while (!stopped || !line.isEmpty()) {
            if (line.poll(200, TimeUnit.MILLISECONDS) != null) {
              s.call(Priority.INTERACTIVE);
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
  }

  private void print(List<Tally> services, long start, Map<String, Object> mockStats)
      throws java.io.IOException {
    Map<String, List<Tally>> byFlow = new LinkedHashMap<>();
    services.forEach(s -> byFlow.computeIfAbsent(s.flow(), f -> new ArrayList<>()).add(s));
    System.out.println("| service | offered | dropped (callers busy) | served | refused at the max wait | 429 | other "
        + "failures | served/s | wait p50 | wait p99 | wait max |");
    System.out.println("|---|---|---|---|---|---|---|---|---|---|---|");
    long inWindow = 0;
    long end = start + seconds * 1_000_000_000L;
    Map<String, List<long[]>> drawn = new LinkedHashMap<>();
    for (Map.Entry<String, List<Tally>> e : byFlow.entrySet()) {
      long offered = 0;
      long dropped = 0;
      long served = 0;
      long refused = 0;
      long tooMany = 0;
      long failed = 0;
      List<Double> waits = new ArrayList<>();
      for (Tally s : e.getValue()) {
        offered += s.offered();
        dropped += s.dropped();
        served += s.served();
        refused += s.refused();
        tooMany += s.tooMany();
        failed += s.failed();
        for (long[] c : s.servedCalls()) {
          waits.add((c[1] - c[0]) / 1e6);
          inWindow += c[1] >= start && c[1] < end ? 1 : 0;
        }
      }
      waits.sort(null);
      List<long[]> all = new ArrayList<>();
      e.getValue().forEach(s -> all.addAll(s.servedCalls()));
      drawn.put(e.getKey(), all);
      System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %.2f | %.0f ms | %.0f ms | %.0f ms |%n",
          e.getKey(), offered, dropped, served, refused, tooMany, failed, (double) served / seconds,
          pct(waits, 0.5), pct(waits, 0.99), pct(waits, 1));
    }
    System.out.printf(Locale.ROOT, "%nat the mock: %s accepted, %s refused (429); calls that left within the %d s: "
        + "%d, %.1f%% of 9/s%n", mockStats.get("accepted"), mockStats.get("refused"), seconds, inWindow,
        100.0 * inWindow / (9.0 * seconds));
    if (svg != null) {
      java.nio.file.Files.writeString(svg.toPath(), SharesChart.svg(String.format(Locale.ROOT, "bench shares, %s%s: "
          + "each served call's wait for its slot (log scale) against when it asked; 429s at the mock: %s",
          scenario, shares ? ", with shares 5, 3, 1 of 9/s" : ", one bucket without shares",
          mockStats.get("refused")), drawn, start, seconds));
    }
  }

  /** One replica's counts and served calls ({asked, left} nanos, this process's clock). */
  private record Tally(String flow, long offered, long dropped, long served, long refused, long tooMany, long failed,
      List<long[]> servedCalls) {
    static Tally of(SharesService s) {
      return new Tally(s.flow, s.offered.sum(), s.dropped.sum(), s.served.sum(), s.refused.sum(), s.tooMany.sum(),
          s.failed.sum(), s.servedCalls());
    }

    /** A storming replica's RESULT: its served calls in ms after the start, on this process's clock again. */
    static Tally of(String json, String flow, long start) throws java.io.IOException {
      JsonNode r = new ObjectMapper().readTree(json);
      List<long[]> calls = new ArrayList<>();
      for (JsonNode c : r.get("calls")) {
        calls.add(new long[] {start + (long) (c.get(0).asDouble() * 1e6), start + (long) (c.get(1).asDouble() * 1e6)});
      }
      return new Tally(flow, r.get("offered").asLong(), 0, r.get("served").asLong(), r.get("refused").asLong(),
          r.get("tooMany").asLong(), r.get("failed").asLong(), calls);
    }
  }

  private static double pct(List<Double> sorted, double p) {
    return sorted.isEmpty() ? 0 : sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p * sorted.size()) - 1));
  }
}
