package io.pixquota.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.pixquota.bacen.QuotaPlan;
import io.pixquota.bacen.QuotaPlanner;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.bacen.pix.PixRateLimitedException;
import io.pixquota.bacen.pix.PixThrottledException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import okhttp3.Credentials;
import okhttp3.FormBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One replica of a bank's service: fires {@code --calls} PIX status queries at the same instant, straight at the
 * provider ({@code direct}) or through the shared bucket ({@code throttled}). Prints {@code PROGRESS} lines and one
 * {@code RESULT} line of JSON. With {@code --bursts 0} it repeats forever, and {@code --metrics-port} serves
 * {@code /metrics} in Prometheus text format (what each docker-compose replica runs).
 */
@Command(name = "replica", mixinStandardHelpOptions = true,
    description = "One replica: fire PIX status queries in bursts, direct or through the shared bucket.")
public final class ReplicaCommand implements Callable<Integer> {
  /** How the replica calls the provider. */
  public enum Mode { DIRECT, THROTTLED }

  @Option(names = "--bacen-url", required = true, description = "Base URL of the provider (mock BACEN).")
  URI bacenUrl;

  @Option(names = "--redis-url", description = "Redis of the shared bucket (throttled mode).")
  String redisUrl;

  @Option(names = "--mode", defaultValue = "THROTTLED", description = "${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  Mode mode;

  @Option(names = "--calls", defaultValue = "20", description = "Queries per burst (default ${DEFAULT-VALUE}).")
  int calls;

  @Option(names = "--replica-id", defaultValue = "1", description = "This replica's number, 1..99 (default ${DEFAULT-VALUE}).")
  int replicaId;

  @Option(names = "--start-at-ms", defaultValue = "0",
      description = "Epoch ms at which to fire the first burst; 0 = at once.")
  long startAtMs;

  @Option(names = "--start-on-stdin",
      description = "Print READY once set up, then read 'GO <epoch ms>' from standard input for the start time.")
  boolean startOnStdin;

  @Option(names = "--capacity", defaultValue = "8", description = "Bucket burst (default ${DEFAULT-VALUE}).")
  double capacity;

  @Option(names = "--rate", defaultValue = "9", description = "Bucket refill per second (default ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--max-wait-ms", defaultValue = "10000", description = "Max wait for a slot (default ${DEFAULT-VALUE}).")
  long maxWaitMs;

  @Option(names = "--bucket-name", defaultValue = "pix", description = "Shared bucket name (default ${DEFAULT-VALUE}).")
  String bucketName;

  @Option(names = "--client-id", defaultValue = "demo", description = "OAuth2 client id (default ${DEFAULT-VALUE}).")
  String clientId;

  @Option(names = "--client-secret", defaultValue = "demo-secret",
      description = "OAuth2 client secret (default: the mock's demo secret).")
  String clientSecret;

  @Option(names = "--bursts", defaultValue = "1", description = "Bursts to fire; 0 = forever (default ${DEFAULT-VALUE}).")
  int bursts;

  @Option(names = "--pause-ms", defaultValue = "5000", description = "Pause between bursts (default ${DEFAULT-VALUE}).")
  long pauseMs;

  @Option(names = "--duration-ms", defaultValue = "0",
      description = "Saturating demand: every caller thread calls back to back for this long; 0 = one call each "
          + "per burst (default ${DEFAULT-VALUE}).")
  long durationMs;

  @Option(names = "--plan-jitter-ms", defaultValue = "0",
      description = "Read the provider's policy (GET /policies/pix) and use the QuotaPlanner's settings for this "
          + "jitter J instead of --capacity and --rate; 0 = off (default ${DEFAULT-VALUE}).")
  long planJitterMs;

  @Option(names = "--linger-ms", defaultValue = "0",
      description = "Keep serving /metrics this long after the last burst (default ${DEFAULT-VALUE}).")
  long lingerMs;

  @Option(names = "--metrics-port", defaultValue = "0",
      description = "Serve /metrics (Prometheus text) on this port; 0 = off (default ${DEFAULT-VALUE}).")
  int metricsPort;

  private final ObjectMapper json = new ObjectMapper();

  @Override
  public Integer call() throws Exception {
    if (replicaId < 1 || replicaId > 99) {
      throw new IllegalArgumentException("--replica-id must be within 1..99, but was " + replicaId);
    }
    if (calls < 1) {
      throw new IllegalArgumentException("--calls must be >= 1, but was " + calls);
    }
    if (mode == Mode.THROTTLED && redisUrl == null) {
      throw new IllegalArgumentException("--redis-url is required in throttled mode");
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    HttpServer metrics = metricsPort > 0 ? serveMetrics(registry) : null;
    LeaveTimes timing = new LeaveTimes();
    OkHttpClient base = new OkHttpClient.Builder()
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("X-Replica-Id", "r" + replicaId).build()))
        .eventListener(timing)
        .build();
    RedissonClient redisson = null;
    try {
      Caller caller;
      if (mode == Mode.DIRECT) {
        String token = token(base);
        caller = id -> direct(base, token, id);
      } else {
        Config config = new Config();
        // Connections for every caller of a burst, opened now: a pool that grows mid-burst sends PINGs then.
        config.useSingleServer().setAddress(redisUrl).setConnectionMinimumIdleSize(calls)
            .setConnectionPoolSize(Math.max(64, calls));
        redisson = Redisson.create(config);
        PixClientConfig pixConfig = PixClientConfig.builder().baseUrl(bacenUrl)
            .credentials(clientId, clientSecret).bucketName(bucketName).bucket(capacity, rate)
            .maxWait(Duration.ofMillis(maxWaitMs)).retry(1, Duration.ofMillis(1), Duration.ofMillis(1),
                Duration.ofSeconds(1)).build();
        PixClient.Builder builder = PixClient.builder(pixConfig).redisson(redisson).meterRegistry(registry)
            .okHttpClient(base);
        if (planJitterMs > 0) {
          try (PixClient probe = PixClient.builder(pixConfig).redisson(redisson).build()) {
            QuotaPlan plan = QuotaPlanner.plan(probe.getPolicy("pix"), Duration.ofMillis(planJitterMs));
            System.err.println("replica r" + replicaId + " plan: " + plan.reasoning());
            builder.quotaPlan(plan);
          }
        }
        PixClient pix = builder.build();
        pix.warmUp();
        caller = id -> throttled(pix, id);
      }
      Map<String, Object> jvmBefore = jvmState();
      long firstStart = startAtMs > 0 ? startAtMs : System.currentTimeMillis();
      if (startOnStdin) {
        System.out.println("READY r" + replicaId);
        System.out.flush();
        String go = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8))
            .readLine();
        if (go == null || !go.startsWith("GO ")) {
          throw new IllegalStateException("expected 'GO <epoch ms>' on standard input, got " + go);
        }
        firstStart = Long.parseLong(go.substring(3).trim());
      }
      for (int burst = 0; bursts == 0 || burst < bursts; burst++) {
        long startAt = firstStart + burst * pauseMs;
        Burst done = burst(caller, timing, startAt);
        List<CallRecord> records = done.records();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("replica", "r" + replicaId);
        result.put("mode", mode.name().toLowerCase());
        result.put("startAtMs", startAt);
        result.put("startNanoTime", done.startNanos());
        result.put("calls", records);
        result.put("jvmBefore", jvmBefore);
        result.put("jvmAfter", jvmState());
        result.put("rebooked", registry.find("bacen.throttle.rebooked").counters().stream()
            .mapToDouble(c -> c.count()).sum());
        result.put("latenessMaxMs", registry.find("bacen.throttle.lateness").timers().stream()
            .mapToDouble(t -> t.max(TimeUnit.MILLISECONDS)).max().orElse(0));
        System.out.println("RESULT " + json.writeValueAsString(result));
        System.out.flush();
      }
      if (metrics != null && lingerMs > 0) {
        Thread.sleep(lingerMs);
      }
    } finally {
      if (redisson != null) {
        redisson.shutdown();
      }
      if (metrics != null) {
        metrics.stop(0);
      }
    }
    return 0;
  }

  @FunctionalInterface
  private interface Caller {
    int call(String endToEndId) throws Exception;
  }

  /** One burst's calls, and its start on this machine's monotonic clock (System.nanoTime). */
  private record Burst(long startNanos, List<CallRecord> records) {}

  private Burst burst(Caller caller, LeaveTimes timing, long startAtMs) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(calls);
    AtomicInteger done = new AtomicInteger();
    long startNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(startAtMs - System.currentTimeMillis());
    String minute = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMddHHmm"));
    long endNanos = startNanos + TimeUnit.MILLISECONDS.toNanos(durationMs);
    AtomicInteger sequence = new AtomicInteger();
    List<Future<List<CallRecord>>> futures = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      futures.add(pool.submit(() -> {
        long left;
        while ((left = startNanos - System.nanoTime()) > 0) {
          LockSupport.parkNanos(left);
        }
        List<CallRecord> mine = new ArrayList<>();
        do {
          // ends in a letter: never in 404, which the mock treats as an unknown Pix
          String id = String.format("E12345678%sR%02dC%06dA", minute, replicaId,
              (System.nanoTime() / 1000 + sequence.incrementAndGet()) % 1_000_000);
          mine.add(one(caller, timing, id, startNanos));
          int n = done.incrementAndGet();
          if (durationMs == 0) {
            System.out.println("PROGRESS r" + replicaId + " " + n + "/" + calls);
            System.out.flush();
          }
        } while (durationMs > 0 && System.nanoTime() < endNanos);
        return mine;
      }));
    }
    List<CallRecord> records = new ArrayList<>();
    for (Future<List<CallRecord>> f : futures) {
      records.addAll(f.get());
    }
    pool.shutdown();
    pool.awaitTermination(5, TimeUnit.SECONDS);
    return new Burst(startNanos, records);
  }

  private CallRecord one(Caller caller, LeaveTimes timing, String id, long startNanos) {
    long t0 = System.nanoTime();
    int status;
    String outcome;
    try {
      status = caller.call(id);
      outcome = status == 200 ? "served" : status == 429 ? "too_many_requests" : "error";
    } catch (PixRateLimitedException e) {
      status = 429;
      outcome = "too_many_requests";
    } catch (PixThrottledException e) {
      status = 0;
      outcome = "throttled";
    } catch (Exception e) {
      status = e instanceof PixException p ? p.status() : 0;
      outcome = status == 404 ? "served" : "error";
    }
    long t1 = System.nanoTime();
    Long leftAt = timing.take();
    double waitMs = leftAt == null ? 0 : (leftAt - t0) / 1e6;
    double leftAtMs = ((leftAt == null ? t0 : leftAt) - startNanos) / 1e6;
    return new CallRecord(status, mode == Mode.DIRECT ? 0 : waitMs, leftAtMs, (t1 - startNanos) / 1e6, outcome);
  }

  /** Live threads and the heap used right after a full GC: what a leak would grow. */
  private static Map<String, Object> jvmState() {
    System.gc();
    Map<String, Object> state = new LinkedHashMap<>();
    state.put("threads", java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount());
    state.put("heapAfterGcBytes", java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage()
        .getUsed());
    return state;
  }

  private String token(OkHttpClient http) throws IOException {
    Request request = new Request.Builder().url(bacenUrl.resolve("/oauth/token").toString())
        .header("Authorization", Credentials.basic(clientId, clientSecret))
        .post(new FormBody.Builder().add("grant_type", "client_credentials").build()).build();
    try (Response response = http.newCall(request).execute()) {
      if (!response.isSuccessful()) {
        throw new IOException("token endpoint answered " + response.code());
      }
      return json.readTree(response.body().string()).get("access_token").asText();
    }
  }

  private int direct(OkHttpClient http, String token, String id) throws IOException {
    Request request = new Request.Builder().url(bacenUrl.resolve("/api/v2/pix/" + id).toString())
        .header("Authorization", "Bearer " + token).build();
    try (Response response = http.newCall(request).execute()) {
      return response.code();
    }
  }

  private static int throttled(PixClient pix, String id) {
    pix.getPix(id);
    return 200;
  }

  private HttpServer serveMetrics(PrometheusMeterRegistry registry) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(metricsPort), 16);
    server.createContext("/metrics", exchange -> {
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return server;
  }
}
