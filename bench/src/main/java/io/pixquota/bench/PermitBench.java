package io.pixquota.bench;

import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.Redissons;
import io.pixquota.throttle.Exchange;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalPermitPool;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.redis.RedisPermitPool;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The SPI's cap in flight, warm, without HTTP: replicas (one Redisson client and one throttle each) whose callers
 * take a permit of one pool and hold it for the provider's latency (a sleep). Against the physical bound cap /
 * latency and against one in-process {@link LocalPermitPool} shared by every caller, in the same run: how much of the
 * bound the fleet-wide pool reaches, the handoff time (from the answer that frees a permit to the next call sent),
 * and Redis round trips per call, as Redis counts them.
 */
@Command(name = "permits", mixinStandardHelpOptions = true,
    description = "Permit pool: throughput against cap/latency, handoff time, round trips; Redis vs in-process.")
final class PermitBench implements Callable<Integer> {
  @Option(names = "--cap", defaultValue = "6", description = "Calls in flight (default ${DEFAULT-VALUE}).")
  int cap;

  @Option(names = "--replicas", defaultValue = "3", description = "Replicas (default ${DEFAULT-VALUE}).")
  int replicas;

  @Option(names = "--callers", defaultValue = "20", description = "Callers per replica (default ${DEFAULT-VALUE}).")
  int callers;

  @Option(names = "--rounds", defaultValue = "5", description = "Calls per caller (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--latency-ms", defaultValue = "200", description = "Each answer (default ${DEFAULT-VALUE}).")
  long latencyMs;

  /** What the provider saw: when each call was sent and answered, and the most in flight at once. */
  private static final class Provider implements Exchange<Integer> {
    final long[] sent;
    final long[] answered;
    final AtomicInteger count = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final long latencyMs;

    Provider(int calls, long latencyMs) {
      sent = new long[calls];
      answered = new long[calls];
      this.latencyMs = latencyMs;
    }

    @Override
    public Integer send() {
      int i = count.getAndIncrement();
      most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      sent[i] = System.nanoTime();
      try {
        Thread.sleep(latencyMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      answered[i] = System.nanoTime();
      inFlight.decrementAndGet();
      return 200;
    }

    @Override
    public int status(Integer response) {
      return response;
    }

    @Override
    public String header(Integer response, String name) {
      return null;
    }
  }

  private record Figures(double perSecond, int most, double handoffP50Ms, double handoffP99Ms, double roundTrips,
      int refused) {}

  @Override
  public Integer call() throws Exception {
    System.out.printf(Locale.ROOT, "bench permits: cap %d, %d replicas x %d callers x %d calls, answers in %d ms, "
        + "%d cores%n", cap, replicas, callers, rounds, latencyMs, Runtime.getRuntime().availableProcessors());
    double bound = cap * 1000.0 / latencyMs;
    try (PrivateRedisServer redis = PrivateRedisServer.start()) {
      List<RedissonClient> clients = new ArrayList<>();
      try {
        List<Throttle> fleet = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
          RedissonClient c = Redisson.create(Redissons.smallPool(redis.uri().toString()));
          clients.add(c);
          fleet.add(throttle(RedisPermitPool.create(RedissonStore.of(c), "spi", cap, Duration.ofSeconds(60))));
        }
        Throttle local = throttle(new LocalPermitPool("spi", cap, Duration.ofSeconds(60)));
        List<Throttle> shared = new ArrayList<>();
        for (int r = 0; r < replicas; r++) {
          shared.add(local);
        }
        run(shared, 1, null); // warm-up: JIT, connections, the script cached
        run(fleet, 1, null);
        Figures inProcess = run(shared, rounds, null);
        Figures fleetWide = run(fleet, rounds, redis);
        System.out.printf(Locale.ROOT, "%n| figure | in-process pool (baseline) | Redis pool, %d replicas |%n"
            + "|---|---|---|%n", replicas);
        System.out.printf(Locale.ROOT, "| calls/s (bound %.0f) | %.1f (%.1f%%) | %.1f (%.1f%%), %.3f x baseline |%n",
            bound, inProcess.perSecond, 100 * inProcess.perSecond / bound, fleetWide.perSecond,
            100 * fleetWide.perSecond / bound, fleetWide.perSecond / inProcess.perSecond);
        System.out.printf(Locale.ROOT, "| most in flight | %d | %d |%n", inProcess.most, fleetWide.most);
        System.out.printf(Locale.ROOT, "| handoff p50 / p99 (answer to next call sent) | %.2f / %.2f ms | %.2f / "
            + "%.2f ms |%n", inProcess.handoffP50Ms, inProcess.handoffP99Ms, fleetWide.handoffP50Ms,
            fleetWide.handoffP99Ms);
        System.out.printf(Locale.ROOT, "| Redis round trips per call (EVAL/EVALSHA) | - | %.2f |%n",
            fleetWide.roundTrips);
        System.out.printf(Locale.ROOT, "| calls refused (max wait 30 s) | %d | %d |%n", inProcess.refused,
            fleetWide.refused);
      } finally {
        clients.forEach(RedissonClient::shutdown);
      }
    }
    return 0;
  }

  private Throttle throttle(PermitPool pool) {
    return Throttle.builder(new LocalTokenBucket("unused", List.of(Limit.of(1, 1)), System::nanoTime))
        .rule(null, "/spi/.*", pool).maxWait(Duration.ofSeconds(30)).providerTimeout(Duration.ofSeconds(10)).build();
  }

  private Figures run(List<Throttle> throttles, int calls, PrivateRedisServer redis) throws Exception {
    int total = throttles.size() * callers * calls;
    Provider provider = new Provider(total, latencyMs);
    ExecutorService threads = Executors.newFixedThreadPool(throttles.size() * callers);
    AtomicInteger refused = new AtomicInteger();
    long scriptsBefore = redis == null ? 0 : redis.scriptCalls();
    try {
      List<Future<?>> all = new ArrayList<>();
      for (Throttle t : throttles) {
        for (int c = 0; c < callers; c++) {
          all.add(threads.submit(() -> {
            for (int k = 0; k < calls; k++) {
              try {
                t.exchange(ThrottleRequest.of("POST", "/spi/pay"), provider);
              } catch (IOException e) {
                refused.incrementAndGet(); // a wait past the max wait, or Redis not answering: counted, shown
              }
            }
            return null;
          }));
        }
      }
      for (Future<?> f : all) {
        f.get();
      }
      double roundTrips = redis == null ? 0 : (redis.scriptCalls() - scriptsBefore) / (double) total;
      int served = provider.count.get();
      if (served <= cap) {
        throw new IllegalStateException("only " + served + " of " + total + " calls were sent");
      }
      long[] sent = Arrays.copyOf(provider.sent, served);
      long[] answered = Arrays.copyOf(provider.answered, served);
      Arrays.sort(sent);
      Arrays.sort(answered);
      double seconds = (answered[served - 1] - sent[0]) / 1e9;
      long[] handoffMicros = new long[served - cap];
      for (int k = cap; k < served; k++) {
        handoffMicros[k - cap] = (sent[k] - answered[k - cap]) / 1000; // the k-th call went in on the (k-cap)-th answer
      }
      Percentiles handoff = Percentiles.of(handoffMicros);
      return new Figures(served / seconds, provider.most.get(), handoff.at(50) / 1000.0, handoff.at(99) / 1000.0,
          roundTrips, refused.get());
    } finally {
      threads.shutdownNow();
    }
  }
}
