package io.pixquota.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.bacen.ProviderPolicy;
import io.pixquota.bacen.QuotaPlan;
import io.pixquota.bacen.QuotaPlanner;
import io.pixquota.bacen.RedisTokenBucket;
import io.pixquota.bacen.ThrottlingInterceptor;
import io.pixquota.bacen.TokenBucketConfig;
import io.pixquota.demo.LeaveTimes;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One replica process of {@code bench peers}: a plain OkHttp client calling {@code GET /api/v2/pix/{id}} behind one
 * {@link Limiter}. Sets everything up (Redis connections, the limiter, an OAuth token fetched with the JDK's HTTP
 * client so that OkHttp stays cold), prints {@code READY}, then runs one workload per line read from standard input,
 * {@code GO <epoch ms> <burst|saturate|paced> <threads> <ms> <replicas>}, and prints one {@code RESULT} JSON line for
 * each. The first GO is the cold run; later ones are warm.
 */
@Command(name = "peer-replica", hidden = true, description = "Child process of 'bench peers'.")
final class PeerReplica implements Callable<Integer> {
  @Option(names = "--limiter", required = true) Limiter limiter;
  @Option(names = "--bacen-url", required = true) URI bacenUrl;
  @Option(names = "--redis-url") String redisUrl;
  @Option(names = "--capacity", defaultValue = "8") double capacity;
  @Option(names = "--rate", defaultValue = "9") double rate;
  @Option(names = "--plan-jitter-ms", defaultValue = "0") long planJitterMs;
  @Option(names = "--bucket-name", required = true) String bucketName;
  @Option(names = "--replica-id", defaultValue = "1") int replicaId;
  @Option(names = "--client-id", defaultValue = "demo") String clientId;
  @Option(names = "--client-secret", defaultValue = "demo-secret") String clientSecret;

  private final ObjectMapper json = new ObjectMapper();

  @Override
  public Integer call() throws Exception {
    if (limiter.usesRedis && redisUrl == null) {
      throw new IllegalArgumentException("--redis-url is required for limiter " + limiter.label());
    }
    HttpClient jdk = HttpClient.newHttpClient();
    String token = token(jdk);
    QuotaPlan plan = null;
    if (planJitterMs > 0) {
      plan = QuotaPlanner.plan(policy(jdk, token), Duration.ofMillis(planJitterMs));
      capacity = plan.capacity();
      rate = plan.ratePerSecond();
      System.err.println("peer-replica r" + replicaId + " plan: " + plan.reasoning());
    }
    RedissonClient redisson = null;
    if (limiter.usesRedis) {
      redisson = Limiter.redisson(redisUrl);
    }
    try {
      LeaveTimes timing = new LeaveTimes();
      OkHttpClient.Builder http = new OkHttpClient.Builder().eventListener(timing);
      Limiter.Gate gate;
      if (limiter == Limiter.OURS) {
        // the SDK as PixClient wires it: a network interceptor, after the connection is set up
        RedisTokenBucket bucket = RedisTokenBucket.create(redisson,
            TokenBucketConfig.custom(bucketName).keyPrefix("peers:").limit(capacity, rate).build());
        bucket.preload();
        ThrottlingInterceptor.Builder throttle = ThrottlingInterceptor.builder(bucket).maxWait(Duration.ofMinutes(5));
        if (plan != null) {
          throttle.plan(plan);
        }
        http.addNetworkInterceptor(throttle.build());
        gate = Limiter.OPEN;
      } else {
        gate = limiter.open(redisson, bucketName, capacity, rate);
      }
      OkHttpClient client = http.build();
      System.out.println("READY r" + replicaId);
      System.out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String line;
      while ((line = in.readLine()) != null && line.startsWith("GO ")) {
        String[] go = line.trim().split(" ");
        Map<String, Object> result = run(client, gate, timing, token, Long.parseLong(go[1]), go[2],
            Integer.parseInt(go[3]), Long.parseLong(go[4]), Integer.parseInt(go[5]));
        System.out.println("RESULT " + json.writeValueAsString(result));
        System.out.flush();
      }
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    } finally {
      if (redisson != null) {
        redisson.shutdown();
      }
    }
    return 0;
  }

  /**
   * One workload. Times are System.nanoTime() values: CLOCK_MONOTONIC on Linux, the same clock in every process of
   * the machine, so the orchestrator can merge replicas and the mock's audit on one axis.
   */
  private Map<String, Object> run(OkHttpClient client, Limiter.Gate gate, LeaveTimes timing, String token,
      long startAtMs, String kind, int threads, long ms, int replicas) throws Exception {
    long startNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startAtMs - System.currentTimeMillis());
    long endNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(ms);
    boolean saturate = kind.equals("saturate");
    boolean paced = kind.equals("paced");
    if (!saturate && !paced && !kind.equals("burst")) {
      throw new IllegalArgumentException("workload must be burst, saturate or paced, but was '" + kind + "'");
    }
    AtomicLong sequence = new AtomicLong();
    Map<Integer, AtomicLong> statuses = new java.util.concurrent.ConcurrentHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<long[]>>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      // paced: arrivals every `ms` across all replicas, interleaved: this replica's i-th caller is arrival
      // i * replicas + (replicaId - 1)
      long arriveAt = paced ? startNanos + TimeUnit.MILLISECONDS.toNanos(ms) * ((long) t * replicas + replicaId - 1)
          : startNanos;
      futures.add(pool.submit(() -> {
        BucketLoad.sleepUntil(arriveAt);
        List<long[]> mine = new ArrayList<>();
        do {
          String id = String.format("E12345678202611300000R%02dC%06dA", replicaId,
              sequence.incrementAndGet() % 1_000_000); // 32 characters, never ending in 404
          long arrived = System.nanoTime();
          int status;
          long admitted;
          try {
            gate.await();
            admitted = System.nanoTime();
            Request request = new Request.Builder().url(bacenUrl.resolve("/api/v2/pix/" + id).toString())
                .header("Authorization", "Bearer " + token).build();
            try (Response response = client.newCall(request).execute()) {
              status = response.code();
              response.body().bytes();
            }
          } catch (IOException e) {
            admitted = System.nanoTime();
            status = 0;
          }
          long done = System.nanoTime();
          Long left = timing.take();
          statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
          if (!saturate) {
            // ours admits inside OkHttp, so its admission is the moment the request leaves
            long admission = limiter == Limiter.OURS && left != null ? left : admitted;
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
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("replica", replicaId);
    result.put("startNanos", startNanos);
    Map<String, Long> counts = new LinkedHashMap<>();
    statuses.forEach((s, n) -> counts.put(Integer.toString(s), n.get()));
    result.put("statuses", counts);
    result.put("calls", calls); // [arrived, admitted, left, done, status] per call
    return result;
  }

  private String token(HttpClient jdk) throws IOException, InterruptedException {
    String basic = Base64.getEncoder().encodeToString((clientId + ":" + clientSecret).getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> response = jdk.send(HttpRequest.newBuilder(bacenUrl.resolve("/oauth/token"))
        .header("Authorization", "Basic " + basic).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("token endpoint answered " + response.statusCode());
    }
    return json.readTree(response.body()).get("access_token").asText();
  }

  /** The provider's policy, read as PixClient#getPolicy does, without warming OkHttp up. */
  private ProviderPolicy policy(HttpClient jdk, String token) throws IOException, InterruptedException {
    HttpResponse<String> response = jdk.send(HttpRequest.newBuilder(bacenUrl.resolve("/policies/pix"))
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
