package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.harness.JvmState;
import io.pixquota.harness.LeaveTimes;
import io.pixquota.harness.Redissons;
import io.pixquota.harness.ReplicaOptions;
import io.pixquota.harness.ReplicaProtocol;
import io.pixquota.harness.Sampler;
import io.pixquota.harness.Sleep;
import io.pixquota.throttle.QuotaHeaders;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.ThrottleException;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.okhttp.ThrottledCallFactory;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One replica process of the benchmarks ({@code peers}, {@code soak}, {@code load}): a plain OkHttp client calling
 * {@code GET /api/v2/pix/{id}} behind one {@link Limiter}. Sets everything up (Redis connections, the limiter, an
 * OAuth token fetched with the JDK's HTTP client so that OkHttp stays cold), says READY, then runs one workload per
 * {@code GO <epoch ms> <burst|saturate|paced> <threads> <ms> <replicas>} ({@link ReplicaProtocol}) and answers each
 * with a RESULT. The first GO is the cold run; later ones are warm.
 */
@Command(name = "peer-replica", hidden = true, description = "Child process of 'bench peers', 'soak' and 'load'.")
final class PeerReplica implements Callable<Integer> {
  /** Status recorded for a call our own bucket did not let go (refused past the max wait, or Redis down). */
  static final int THROTTLED = -1;

  @Option(names = "--limiter", required = true) Limiter limiter;
  @Option(names = "--max-wait-ms", defaultValue = "300000") long maxWaitMs;
  @Option(names = "--quota-headers", description = "Ours: read the provider's remaining quota in this header family "
      + "on every answer (${COMPLETION-CANDIDATES}).")
  QuotaHeaders quotaHeaders;
  @Option(names = "--no-rate-adaptation", description = "Ours: keep the configured rate whatever the provider answers.")
  boolean noRateAdaptation;

  @Option(names = "--cold", description = "Do not warm the HTTP client before the first call (a service that sends "
      + "its first request in the middle of a burst).")
  boolean cold;
  @Mixin ReplicaOptions options;

  private final ObjectMapper json = new ObjectMapper();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @Override
  public Integer call() throws Exception {
    options.validate(limiter.usesRedis);
    HttpClient jdk = HttpClient.newHttpClient();
    String token = MockToken.fetch(jdk, options.bacenUrl, options.clientId, options.clientSecret);
    QuotaPlan plan = null;
    double capacity = options.bucket.capacity;
    double rate = options.bucket.rate;
    if (options.planJitterMs > 0) {
      plan = QuotaPlanner.plan(policy(jdk, token), Duration.ofMillis(options.planJitterMs));
      capacity = plan.capacity();
      rate = plan.ratePerSecond();
      System.err.println("peer-replica " + options.id() + " plan: " + plan.reasoning());
    }
    RedissonClient redisson = limiter.usesRedis && !limiter.onLettuce() ? Redissons.defaults(options.redisUrl) : null;
    if (limiter.onLettuce()) {
      Limiter.useLettuceAt(options.redisUrl);
    }
    boolean ours = limiter == Limiter.OURS || limiter == Limiter.OURS_LETTUCE; // the interceptor over our bucket
    try {
      LeaveTimes timing = new LeaveTimes();
      OkHttpClient.Builder http = new OkHttpClient.Builder().eventListener(timing);
      Limiter.Gate gate = Limiter.OPEN;
      RedisTokenBucket bucket = null;
      if (ours) {
        TokenBucketConfig.Builder config = TokenBucketConfig.custom(options.bucketName).keyPrefix("peers:")
            .limit(capacity, rate);
        if (noRateAdaptation) {
          config.rateAdaptation(null);
        }
        bucket = RedisTokenBucket.create(limiter.store(redisson), config.build());
        bucket.preload();
        ThrottleBuilder throttle = Throttle.builder(bucket).maxWait(Duration.ofMillis(maxWaitMs))
            .meterRegistry(meters).quotaHeaders(quotaHeaders);
        if (plan != null) {
          throttle.plan(plan);
        }
        http.addNetworkInterceptor(ThrottlingInterceptor.of(throttle.build()));
      } else {
        gate = limiter.open(redisson, options.bucketName, capacity, rate);
      }
      OkHttpClient client = http.build();
      Call.Factory calls = ours ? ThrottledCallFactory.of(client) : client; // as PixClient calls
      if (!cold) {
        warmUp(client, token, 8);
      }
      Map<String, Object> jvmBefore = JvmState.snapshot();
      ReplicaProtocol protocol = new ReplicaProtocol(System.out);
      protocol.ready(options.id());
      Optional<ReplicaProtocol.Go> go;
      while ((go = protocol.next()).isPresent()) {
        List<String> w = go.get().words();
        RedisTokenBucket sampled = bucket;
        Sampler sampler = sampled == null ? null : Sampler.start(System.nanoTime(), 20,
            () -> new double[] {sampled.readings().rateFactor(), sampled.readings().configurations(),
                max("bacen.throttle.lateness"), max("bacen.throttle.answer"), count("bacen.throttle.rebooked")});
        Map<String, Object> result = run(calls, gate, timing, token, go.get().startNanos(), w.get(0),
            Integer.parseInt(w.get(1)), Long.parseLong(w.get(2)), Integer.parseInt(w.get(3)));
        if (sampler != null) {
          // [nanos, rate factor, configurations, lateness max ms, answer max ms, rebooked] as the replica saw them
          result.put("fleet", sampler.stop());
        }
        result.put("jvmBefore", jvmBefore);
        result.put("jvmAfter", JvmState.snapshot());
        protocol.result(json.writeValueAsString(result));
      }
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    } finally {
      if (redisson != null) {
        redisson.shutdown();
      }
      Limiter.closeLettuce();
    }
    return 0;
  }

  /**
   * Warms the client as a service does before its first burst (PixClient.warmUp, with its token request): a few
   * requests outside the bucket ({@code GET /policies/pix}, which the provider does not count), on as many connections
   * as there are callers. A cold client sends its first requests hundreds of milliseconds after their slots (OkHttp's
   * sending path loads and interprets its classes after the throttle let the call go), so they reach the provider
   * bunched with the calls booked after them: measured in bench soak, the first arrivals 270-630 ms after the start
   * cold and 95-170 ms warm.
   */
  private void warmUp(OkHttpClient client, String token, int connections) throws InterruptedException {
    OkHttpClient.Builder unthrottled = client.newBuilder();
    unthrottled.networkInterceptors().clear();
    OkHttpClient warm = unthrottled.build();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < connections; i++) {
      Thread t = new Thread(() -> {
        for (int k = 0; k < 5; k++) {
          try (Response r = warm.newCall(new Request.Builder().url(options.pixUrl().resolve("policies/pix")
              .toString()).header("Authorization", "Bearer " + token).build()).execute()) {
            r.body().bytes();
          } catch (IOException e) {
            System.err.println("warm-up request failed: " + e);
          }
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
  }

  /** The largest value a timer of the throttle has seen lately (Micrometer's decaying max), in ms. */
  private double max(String timer) {
    return meters.find(timer).timers().stream().mapToDouble(t -> t.max(TimeUnit.MILLISECONDS)).max().orElse(0);
  }

  private double count(String counter) {
    return meters.find(counter).counters().stream().mapToDouble(Counter::count).sum();
  }

  /**
   * One workload. Times are System.nanoTime() values: CLOCK_MONOTONIC on Linux, the same clock in every process of
   * the machine, so the orchestrator can merge replicas and the mock's audit on one axis.
   */
  private Map<String, Object> run(Call.Factory client, Limiter.Gate gate, LeaveTimes timing, String token,
      long startNanos, String kind, int threads, long ms, int replicas) throws Exception {
    long endNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(ms);
    boolean saturate = kind.equals("saturate");
    boolean paced = kind.equals("paced");
    if (!saturate && !paced && !kind.equals("burst")) {
      throw new IllegalArgumentException("workload must be burst, saturate or paced, but was '" + kind + "'");
    }
    AtomicLong sequence = new AtomicLong();
    Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<long[]>>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      // paced: arrivals every `ms` across all replicas, interleaved: this replica's i-th caller is arrival
      // i * replicas + (replicaId - 1)
      long arriveAt = paced ? startNanos + TimeUnit.MILLISECONDS.toNanos(ms)
          * ((long) t * replicas + options.replicaId - 1) : startNanos;
      futures.add(pool.submit(() -> {
        Sleep.until(arriveAt);
        List<long[]> mine = new ArrayList<>();
        do {
          String id = String.format("E12345678202611300000R%02dC%06dA", options.replicaId,
              sequence.incrementAndGet() % 1_000_000); // 32 characters, never ending in 404
          long arrived = System.nanoTime();
          int status;
          long admitted;
          try {
            gate.await();
            admitted = System.nanoTime();
            status = call(client, token, id);
          } catch (ThrottleException | StoreUnavailableException e) { // refused, or its store failed: not sent
            admitted = System.nanoTime();
            status = THROTTLED;
          } catch (IOException e) {
            admitted = System.nanoTime();
            status = 0;
          }
          long done = System.nanoTime();
          Long left = timing.take();
          statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
          if (!saturate) {
            // ours admits inside OkHttp, so its admission is the moment the request leaves
            long admission = (limiter == Limiter.OURS || limiter == Limiter.OURS_LETTUCE) && left != null ? left
                : admitted;
            mine.add(new long[] {arrived, admission, left == null ? admission : left, done, status});
          }
        } while (saturate && System.nanoTime() < endNanos);
        return mine;
      }));
    }
    List<long[]> calls = new ArrayList<>();
    for (Future<List<long[]>> f : futures) {
      calls.addAll(f.get());
    }
    pool.shutdown();
    pool.awaitTermination(5, TimeUnit.SECONDS); // so that the JVM's thread count after the run is not inflated
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("replica", options.replicaId);
    result.put("startNanos", startNanos);
    Map<String, Long> counts = new LinkedHashMap<>();
    statuses.forEach((s, n) -> counts.put(Integer.toString(s), n.get()));
    result.put("statuses", counts);
    result.put("calls", calls); // [arrived, admitted, left, done, status] per call
    return result;
  }

  private int call(Call.Factory client, String token, String id) throws IOException {
    Request request = new Request.Builder().url(options.pixUrl().resolve("pix/" + id).toString())
        .header("Authorization", "Bearer " + token).header("X-Replica-Id", options.id()).build();
    try (Response response = client.newCall(request).execute()) {
      response.body().bytes();
      return response.code();
    }
  }

  /** The provider's policy, read as PixClient#getPolicy does, without warming OkHttp up. */
  private ProviderPolicy policy(HttpClient jdk, String token) throws IOException, InterruptedException {
    HttpResponse<String> response = jdk.send(HttpRequest.newBuilder(options.pixUrl().resolve("policies/pix"))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("policy endpoint answered " + response.statusCode());
    }
    JsonNode body = json.readTree(response.body());
    if (!body.path("kind").asText().endsWith("BUCKET")) {
      throw new IOException("expected a token bucket policy, got " + body.path("kind").asText());
    }
    return ProviderPolicy.tokenBucket(body.path("capacity").asDouble(), body.path("refillTokens").asDouble(),
        Duration.ofMillis(body.path("refillPeriodMillis").asLong()));
  }
}
