package io.pixquota.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.AbstractRedisClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixClientConfigBuilder;
import io.pixquota.harness.JvmState;
import io.pixquota.harness.LeaveTimes;
import io.pixquota.harness.ReplicaOptions;
import io.pixquota.harness.ReplicaProtocol;
import io.pixquota.harness.SchedulingLag;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.QuotaHeaders;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.LettuceStore;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.throttle.store.RateAdaptation;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One replica of a bank's service: fires {@code --calls} PIX status queries at the same instant, straight at the
 * provider ({@code direct}) or through the shared bucket ({@code throttled}), and prints {@code PROGRESS} lines and
 * one {@code RESULT} line of JSON per burst ({@link ReplicaProtocol}). With {@code --bursts 0} it repeats forever,
 * and {@code --metrics-port} serves {@code /metrics} in Prometheus text format (what each docker-compose replica
 * runs).
 */
@Command(name = "replica", mixinStandardHelpOptions = true,
    description = "One replica: fire PIX status queries in bursts, direct or through the shared bucket.")
public final class ReplicaCommand implements Callable<Integer> {
  /** How the replica calls the provider. */
  public enum Mode { DIRECT, THROTTLED }

  @Mixin
  ReplicaOptions options;

  /** The Redis client a replica's bucket runs on. */
  enum RedisClientKind { REDISSON, LETTUCE }

  @Option(names = "--redis-client", defaultValue = "REDISSON",
      description = "The Redis client of the shared bucket: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  RedisClientKind redisClient;

  @Option(names = "--mode", defaultValue = "THROTTLED",
      description = "${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  Mode mode;

  @Option(names = "--calls", defaultValue = "20", description = "Queries per burst (default ${DEFAULT-VALUE}).")
  int calls;

  @Option(names = "--start-at-ms", defaultValue = "0",
      description = "Epoch ms at which to fire the first burst; 0 = at once.")
  long startAtMs;

  @Option(names = "--start-on-stdin",
      description = "Print READY once set up, then read 'GO <epoch ms>' from standard input for the start time.")
  boolean startOnStdin;

  @Option(names = "--max-wait-ms", defaultValue = "10000",
      description = "Max wait for a slot (default ${DEFAULT-VALUE}).")
  long maxWaitMs;

  @Option(names = "--bursts", defaultValue = "1",
      description = "Bursts to fire; 0 = forever (default ${DEFAULT-VALUE}).")
  int bursts;

  @Option(names = "--pause-ms", defaultValue = "5000", description = "Pause between bursts (default ${DEFAULT-VALUE}).")
  long pauseMs;

  @Option(names = "--duration-ms", defaultValue = "0",
      description = "Saturating demand: every caller thread calls back to back for this long; 0 = one call each "
          + "per burst (default ${DEFAULT-VALUE}).")
  long durationMs;

  @Option(names = "--pace-ms", defaultValue = "0",
      description = "With --duration-ms: each caller calls once every this many ms instead of back to back "
          + "(default ${DEFAULT-VALUE}).")
  long paceMs;

  @Option(names = "--priority", defaultValue = "INTERACTIVE",
      description = "The priority class of this replica's calls: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE}).")
  Priority priority;

  @Option(names = "--linger-ms", defaultValue = "0",
      description = "Keep serving /metrics this long after the last burst (default ${DEFAULT-VALUE}).")
  long lingerMs;

  @Option(names = "--quota-headers", description = "Read the provider's remaining quota in this header family on "
      + "every answer (${COMPLETION-CANDIDATES}) and lower the shared bucket when fewer remain than it expected.")
  QuotaHeaders quotaHeaders;

  @Option(names = "--no-rate-adaptation",
      description = "Keep the configured rate whatever the provider answers (the SDK follows its 429s by default).")
  boolean noRateAdaptation;

  @Option(names = "--in-flight", defaultValue = "0",
      description = "Calls in flight at once for the fleet: each holds a permit beside the bucket (default "
          + "${DEFAULT-VALUE}: no cap).")
  int inFlight;

  @Option(names = "--call-timeout-ms", defaultValue = "0",
      description = "The PixClient's call timeout; 0: the max wait + 30 s (default ${DEFAULT-VALUE}).")
  long callTimeoutMs;

  @Option(names = "--permit-lease-ms", defaultValue = "0",
      description = "With --in-flight: how long a permit lasts when its holder dies; 0: the SDK's default.")
  long permitLeaseMs;

  @Option(names = "--provider-timeout-ms", defaultValue = "0",
      description = "With --in-flight: how long the provider may work on a call after its send (a call that times "
          + "out keeps its permit this long); 0: the SDK's default.")
  long providerTimeoutMs;

  @Option(names = "--metrics-port", defaultValue = "0",
      description = "Serve /metrics (Prometheus text) on this port; 0 = off (default ${DEFAULT-VALUE}).")
  int metricsPort;

  private final ObjectMapper json = new ObjectMapper();

  @Override
  public Integer call() throws Exception {
    options.validate(mode == Mode.THROTTLED);
    if (calls < 1) {
      throw new IllegalArgumentException("--calls must be >= 1, but was " + calls);
    }
    if (paceMs < 0) {
      throw new IllegalArgumentException("--pace-ms must be >= 0, but was " + paceMs);
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    ReplicaProtocol protocol = new ReplicaProtocol(System.out);
    LeaveTimes timing = new LeaveTimes();
    OkHttpClient base = new OkHttpClient.Builder()
        .connectionPool(new ConnectionPool(Math.max(5, (int) Math.ceil(options.bucket.capacity)), 5,
            TimeUnit.MINUTES)) // the connections warmUp opens for the burst, kept
        .callTimeout(Duration.ofMillis(mode == Mode.DIRECT ? callTimeoutMs : 0)) // PixClient sets its own
        .addInterceptor(chain -> chain.proceed(chain.request().newBuilder()
            .header("X-Replica-Id", options.id()).build()))
        .eventListener(timing)
        .build();
    RedissonClient redisson = null;
    AbstractRedisClient lettuce = null;
    try (MetricsEndpoint metrics = metricsPort > 0 ? MetricsEndpoint.start(metricsPort, registry) : null) {
      Burst.Caller caller;
      if (mode == Mode.DIRECT) {
        caller = new DirectCaller(base, options.bacenUrl, options.pixUrl(), options.clientId, options.clientSecret);
      } else {
        // connections for every caller of a burst, opened now: a pool that grows mid-burst sends PINGs then
        RedisStore store;
        if (redisClient == RedisClientKind.LETTUCE) {
          lettuce = RedisAddress.parse(options.redisUrl).connectLettuce(Duration.ofSeconds(3));
          store = LettuceStore.of(lettuce);
        } else {
          redisson = RedisAddress.parse(options.redisUrl).connect(Duration.ofSeconds(3), calls);
          store = RedissonStore.of(redisson);
        }
        caller = throttled(store, registry, base);
      }
      Map<String, Object> jvmBefore = JvmState.snapshot();
      long firstStart = startAtMs > 0 ? startAtMs : System.currentTimeMillis();
      if (startOnStdin) {
        protocol.ready(options.id());
        firstStart = protocol.next().orElseThrow(() -> new IllegalStateException("no GO on standard input"))
            .startAtEpochMs();
      }
      Burst burst = new Burst(caller, timing, calls, durationMs, paceMs, options.replicaId, mode == Mode.DIRECT,
          done -> {
            if (durationMs == 0) {
              protocol.progress(options.id(), done, calls);
            }
          });
      for (int n = 0; bursts == 0 || n < bursts; n++) {
        long startAt = firstStart + n * pauseMs;
        RateSamples rates = mode == Mode.THROTTLED ? RateSamples.start(registry, startAt) : null;
        Burst.Run run;
        double lagMaxMs;
        try (SchedulingLag lag = SchedulingLag.start()) {
          run = burst.fire(startAt);
          lagMaxMs = lag.maxMs();
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("replica", options.id());
        result.put("mode", mode.name().toLowerCase(Locale.ROOT));
        result.put("redisClient", mode == Mode.DIRECT ? "none" : redisClient.name().toLowerCase(Locale.ROOT));
        result.put("startAtMs", startAt);
        result.put("startNanoTime", run.startNanos());
        result.put("calls", run.records());
        result.put("effectiveRate", rates == null ? List.of() : rates.stop());
        result.put("jvmBefore", jvmBefore);
        result.put("jvmAfter", JvmState.snapshot());
        Map<String, Double> quotaHeaders = new LinkedHashMap<>(); // the provider's quota headers read, by outcome
        registry.find("bacen.throttle.quota.headers").counters().forEach(c -> quotaHeaders.merge(
            c.getId().getTag("outcome"), c.count(), Double::sum));
        result.put("quotaHeaders", quotaHeaders);
        result.put("rebooked", registry.find("bacen.throttle.rebooked").counters().stream()
            .mapToDouble(c -> c.count()).sum());
        result.put("latenessMaxMs", registry.find("bacen.throttle.lateness").timers().stream()
            .mapToDouble(t -> t.max(TimeUnit.MILLISECONDS)).max().orElse(0));
        result.put("answerMaxMs", registry.find("bacen.throttle.answer").timers().stream()
            .mapToDouble(t -> t.max(TimeUnit.MILLISECONDS)).max().orElse(0));
        result.put("schedulingLagMaxMs", lagMaxMs); // how late this JVM's threads woke during the burst
        result.put("stateRepairs", registry.find("bacen.throttle.state.repaired").functionCounters().stream()
            .mapToDouble(c -> c.count()).sum()); // fields of the shared state this replica had to reset
        result.put("stateLost", registry.find("bacen.throttle.state.lost").counters().stream()
            .mapToDouble(c -> c.count()).sum());
        result.put("superseded", registry.find("bacen.throttle.superseded").counters().stream()
            .mapToDouble(c -> c.count()).sum()); // slots a cut of the rate moved (or made book again)
        protocol.result(json.writeValueAsString(result));
      }
      if (metrics != null && lingerMs > 0) {
        Thread.sleep(lingerMs);
      }
    } finally {
      if (redisson != null) {
        redisson.shutdown();
      }
      if (lettuce != null) {
        lettuce.shutdown();
      }
    }
    return 0;
  }

  /** The SDK as a service would use it: a PixClient over the shared Redis, its settings planned or given. */
  private Burst.Caller throttled(RedisStore store, PrometheusMeterRegistry registry, OkHttpClient base)
      throws IOException {
    PixClientConfigBuilder c = PixClientConfig.builder().baseUrl(options.pixUrl())
        .credentials(options.clientId, options.clientSecret).bucketName(options.bucketName)
        .bucket(options.bucket.capacity, options.bucket.rate).maxWait(Duration.ofMillis(maxWaitMs))
        .callTimeout(Duration.ofMillis(callTimeoutMs > 0 ? callTimeoutMs : maxWaitMs + 30_000)) // counts the wait
        .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1))
        .rateAdaptation(noRateAdaptation ? null : RateAdaptation.defaults()).defaultPriority(priority)
        .quotaHeaders(quotaHeaders)
        .maxInFlight(inFlight);
    if (permitLeaseMs > 0) {
      c.permitLease(Duration.ofMillis(permitLeaseMs));
    }
    if (providerTimeoutMs > 0) {
      c.providerTimeout(Duration.ofMillis(providerTimeoutMs));
    }
    PixClientConfig config = c.build();
    // a client of the service's own, sized as docs/guide.md advises (at least the cap; the burst and a second of the
    // rate), as PixClient sizes one it makes: it bounds the calls to the provider at once, blocking and async alike
    int perHost = Math.max(inFlight, (int) Math.ceil(options.bucket.capacity + options.bucket.rate));
    base.dispatcher().setMaxRequestsPerHost(Math.max(base.dispatcher().getMaxRequestsPerHost(), perHost));
    // a connection open for each call the bucket grants at once: the mock does not count GET /policies
    PixClient.Builder builder = PixClient.builder(config).store(store).meterRegistry(registry)
        .okHttpClient(base).warmUpConnections((int) Math.ceil(options.bucket.capacity));
    if (options.planJitterMs > 0) {
      try (PixClient probe = PixClient.builder(config).store(store).build()) {
        QuotaPlan plan = QuotaPlanner.plan(probe.getPolicy("pix"), Duration.ofMillis(options.planJitterMs));
        System.err.println("replica " + options.id() + " plan: " + plan.reasoning());
        builder.quotaPlan(plan);
      }
    }
    PixClient pix = builder.build();
    pix.warmUp();
    return id -> {
      pix.getPix(id);
      return 200;
    };
  }
}
