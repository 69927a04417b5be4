package io.pixquota.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.Sleep;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.RedisAddress;
import java.net.URI;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Priority classes, measured: a batch replica at saturating demand (several threads calling back to back, so without
 * priorities each holds a slot booked ahead) next to an interactive replica calling once a second, both on one shared
 * bucket with the planner's settings, against the mock BACEN (token bucket 10 + 10/s); once with every call in one
 * class (no priorities) and once with the batch replica's calls in {@link Priority#BATCH}. Two {@link PixClient}s in
 * this JVM, each with its own Redisson client. Prints a markdown table.
 */
@Command(name = "priorities", mixinStandardHelpOptions = true,
    description = "Interactive calls next to a saturating batch job on one bucket, without and with priority classes.")
final class PriorityBench implements Callable<Integer> {
  @Option(names = "--batch-threads", defaultValue = "8",
      description = "Batch threads calling back to back (default ${DEFAULT-VALUE}).")
  int batchThreads;

  @Option(names = "--seconds", defaultValue = "40", description = "Length of each run (default ${DEFAULT-VALUE}).")
  int seconds;

  @Option(names = "--plan-jitter-ms", defaultValue = "100",
      description = "The J given to the planner (default ${DEFAULT-VALUE}).")
  long planJitterMs;

  @Option(names = "--batch-clients", defaultValue = "1",
      description = "Batch PixClients (as many processes: each its own interceptor and Redisson client), each with "
          + "--batch-threads threads (default ${DEFAULT-VALUE}).")
  int batchClients;

  @Option(names = "--batch-horizon-ms", defaultValue = "0",
      description = "How far ahead batch calls may book with priorities (default ${DEFAULT-VALUE}).")
  long batchHorizonMs;

  /** Counted after this, so that both classes run at their steady pace. */
  private static final long WARM_UP_MS = 5_000;

  @Override
  public Integer call() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().threads(64).build())) {
      System.out.printf(Locale.ROOT, "bench priorities: mock BACEN token bucket 10 + 10/s; %d batch client(s) of %d "
          + "threads back to back and 1 interactive call per second for %d s, counted from %d s; %d cores; %s%n%n",
          batchClients, batchThreads, seconds, WARM_UP_MS / 1000, Runtime.getRuntime().availableProcessors(),
          Runtime.version());
      System.out.println("| batch calls in | interactive calls | interactive wait p50 | p99 | max | batch served/s "
          + "| / (bucket rate - interactive rate) | batch not served | 429 | bucket calls per call served |");
      System.out.println("|---|---|---|---|---|---|---|---|---|---|");
      Run last = null;
      for (Priority batchClass : new Priority[] {Priority.INTERACTIVE, Priority.BATCH}) {
        mock.reset();
        long scriptCallsBefore = redis.scriptCalls();
        Run r = run(mock.pixUrl(), redis.uri(), batchClass);
        long scriptCalls = redis.scriptCalls() - scriptCallsBefore;
        Map<String, Object> stats = mock.stats("demo", false);
        Percentiles waits = Percentiles.of(r.interactiveWaitsMicros);
        System.out.printf(Locale.ROOT, "| %s | %d | %.1f ms | %.1f ms | %.1f ms | %.2f | %.1f%% | %d | %s | %.2f |%n",
            batchClass == Priority.BATCH ? "BATCH (horizon " + batchHorizonMs + " ms)" : "INTERACTIVE (one class)",
            r.interactiveWaitsMicros.length, waits.at(50) / 1e3, waits.at(99) / 1e3, waits.at(100) / 1e3,
            r.batchPerSecond, 100 * r.batchPerSecond / (r.rate - r.interactivePerSecond), r.batchFailed,
            stats.get("refused"), (double) scriptCalls / r.served);
        last = r;
        r.failures.forEach((what, n) -> System.err.printf(Locale.ROOT, "%s: batch failure x %d: %s%n", batchClass,
            n, what));
      }
      System.out.printf(Locale.ROOT, "%nInteractive wait: from the call to its answer, the mock answering at once "
          + "(the slot's wait and ~1 ms of HTTP). Bucket: the planner's settings for J = %d ms: rate %.3f/s, one slot "
          + "1 / r = %.1f ms, late limit %.1f ms.%n", planJitterMs, last.rate, 1000 / last.rate, last.lateLimitMs);
    }
    return 0;
  }

  private record Run(double rate, double lateLimitMs, long[] interactiveWaitsMicros, double interactivePerSecond,
      double batchPerSecond, int batchFailed, long served, Map<String, Integer> failures) {}

  private Run run(URI bacen, URI redisUrl, Priority batchClass) throws Exception {
    String bucket = "priorities-" + batchClass.name().toLowerCase(Locale.ROOT) + "-" + System.nanoTime();
    List<RedissonClient> redisClients = new ArrayList<>();
    List<PixClient> batches = new ArrayList<>();
    ExecutorService pool = Executors.newCachedThreadPool();
    RedissonClient interactiveRedis = RedisAddress.parse(redisUrl.toString()).connect(Duration.ofSeconds(2));
    redisClients.add(interactiveRedis);
    for (int i = 0; i < batchClients; i++) {
      RedissonClient r = RedisAddress.parse(redisUrl.toString()).connect(Duration.ofSeconds(2), 16);
      redisClients.add(r);
      batches.add(client(bacen, bucket, batchClass, r, batches.isEmpty() ? null : batches.get(0)));
    }
    PixClient batch = batches.get(0);
    try (PixClient interactive = client(bacen, bucket, Priority.INTERACTIVE, interactiveRedis, batch)) {
      QuotaPlan plan = plan(batch);
      double rate = plan.ratePerSecond();
      batches.forEach(PixClient::warmUp);
      interactive.warmUp();
      long start = System.nanoTime();
      long countFrom = start + TimeUnit.MILLISECONDS.toNanos(WARM_UP_MS);
      long end = start + TimeUnit.SECONDS.toNanos(seconds);
      AtomicInteger batchServed = new AtomicInteger();
      AtomicInteger allServed = new AtomicInteger();
      AtomicInteger batchFailed = new AtomicInteger();
      Map<String, Integer> failures = new ConcurrentHashMap<>();
      AtomicInteger ids = new AtomicInteger();
      String minute = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMddHHmm"));
      List<Future<?>> batchThreadsDone = new ArrayList<>();
      for (int t = 0; t < batchThreads * batchClients; t++) {
        PixClient mine = batches.get(t % batchClients);
        batchThreadsDone.add(pool.submit(() -> {
          while (System.nanoTime() < end) {
            try {
              mine.getPix(e2e(minute, ids.incrementAndGet()));
              allServed.incrementAndGet();
              if (System.nanoTime() >= countFrom && System.nanoTime() < end) {
                batchServed.incrementAndGet();
              }
            } catch (PixException e) {
              batchFailed.incrementAndGet();
              failures.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
            }
          }
          return null;
        }));
      }
      List<Long> waits = Collections.synchronizedList(new ArrayList<>());
      List<Future<?>> interactiveCalls = new ArrayList<>();
      for (long at = countFrom; at < end; at += TimeUnit.SECONDS.toNanos(1)) {
        Sleep.until(at);
        interactiveCalls.add(pool.submit(() -> {
          long asked = System.nanoTime();
          interactive.getPix(e2e(minute, ids.incrementAndGet()));
          allServed.incrementAndGet();
          waits.add((System.nanoTime() - asked) / 1000);
          return null;
        }));
      }
      for (Future<?> f : interactiveCalls) {
        f.get(1, TimeUnit.MINUTES);
      }
      for (Future<?> f : batchThreadsDone) {
        f.get(2, TimeUnit.MINUTES);
      }
      double counted = (end - countFrom) / 1e9;
      return new Run(rate, plan.lateLimit().toNanos() / 1e6, waits.stream().mapToLong(Long::longValue).toArray(),
          waits.size() / counted, batchServed.get() / counted, batchFailed.get(), allServed.get(),
          Map.copyOf(failures));
    } finally {
      pool.shutdownNow();
      batches.forEach(PixClient::close);
      redisClients.forEach(RedissonClient::shutdown);
    }
  }

  private QuotaPlan plan(PixClient client) {
    return QuotaPlanner.plan(client.getPolicy("pix"), Duration.ofMillis(planJitterMs));
  }

  /** A client of the shared bucket in {@code defaultClass}, with the planner's settings read through {@code via}. */
  private PixClient client(URI bacen, String bucket, Priority defaultClass, RedissonClient redisson, PixClient via) {
    PixClientConfig config = PixClientConfig.builder().baseUrl(bacen).credentials("demo", "demo-secret")
        .bucketName(bucket).maxWait(Duration.ofSeconds(30)).callTimeout(Duration.ofSeconds(60))
        .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1))
        .defaultPriority(defaultClass).batchHorizon(Duration.ofMillis(batchHorizonMs)).build();
    PixClient.Builder b = PixClient.builder(config).redisson(redisson).meterRegistry(new SimpleMeterRegistry());
    if (via == null) {
      try (PixClient reader = PixClient.builder(config).redisson(redisson).build()) {
        b.quotaPlan(plan(reader));
      }
    } else {
      b.quotaPlan(plan(via));
    }
    return b.build();
  }

  private static String e2e(String minute, int n) {
    return String.format(Locale.ROOT, "E12345678%sP%09dA", minute, n); // the mock knows no id ending in 404
  }
}
