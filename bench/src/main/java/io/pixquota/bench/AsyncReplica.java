package io.pixquota.bench;

import io.pixquota.throttle.redis.RedissonStore;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixRateLimitedException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.harness.ReplicaOptions;
import io.pixquota.harness.ReplicaProtocol;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.okhttp.AsyncCallDispatcher;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.Call;
import okhttp3.EventListener;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.redisson.api.RedissonClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One JVM that queues {@code --calls} PIX status checks at once through a {@link PixClient}: {@code SYNC} (one
 * platform thread per call, blocking {@code getPix}), {@code ASYNC} ({@code getPixAsync} from one thread) or
 * {@code VIRTUAL} (one virtual thread per call, blocking {@code getPix}; Java 21+, counted for pinning with JFR's
 * {@code jdk.VirtualThreadPinned}). Prints READY, waits for GO, then one RESULT: threads at the peak, outcomes, when
 * each call left (by an OkHttp event listener, after the throttle), the bucket's late-leave meters.
 */
@Command(name = "async-replica", hidden = true, description = "One JVM of bench async.")
final class AsyncReplica implements Callable<Integer> {
  /** How the calls are made. */
  enum Mode { SYNC, ASYNC, VIRTUAL, RESTCLIENT, WEBCLIENT }

  @Option(names = "--mode", required = true) Mode mode;
  @Option(names = "--calls", defaultValue = "2000") int calls;
  @Option(names = "--max-wait-ms", defaultValue = "120000") long maxWaitMs;
  @Mixin ReplicaOptions options;

  private final ObjectMapper json = new ObjectMapper();
  private final Map<Integer, Long> leftAt = new ConcurrentHashMap<>();

  @Override
  public Integer call() throws Exception {
    options.validate(true);
    Map<Integer, Long> askedAt = new ConcurrentHashMap<>();
    // a client of the service's own, as docs/guide.md advises one: its async calls in flight on virtual threads
    // (Java 24+)
    OkHttpClient.Builder own = new OkHttpClient.Builder().dispatcher(AsyncCallDispatcher.create());
    OkHttpClient base = own.eventListener(new EventListener() {
      @Override
      public void requestHeadersEnd(Call call, Request request) {
        String path = request.url().encodedPath();
        int c = path.lastIndexOf('C');
        if (path.contains("/pix/") && c > 0) {
          leftAt.putIfAbsent(Integer.parseInt(path.substring(c + 1, c + 7)), System.nanoTime());
        }
      }
    }).build();
    // the SDK's own Redisson client, as PixClient builds it from REDIS_URL, with a connection for each blocking caller
    RedissonClient redisson = RedisAddress.parse(options.redisUrl).connect(Duration.ofSeconds(2),
        mode == Mode.ASYNC ? 4 : 64);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    PixClientConfig config = PixClientConfig.builder().baseUrl(options.pixUrl())
        .credentials(options.clientId, options.clientSecret).bucketName(options.bucketName)
        .bucket(options.bucket.capacity, options.bucket.rate).maxWait(Duration.ofMillis(maxWaitMs))
        .callTimeout(Duration.ofMillis(maxWaitMs + 30_000))
        .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1)).build();
    base.dispatcher().setMaxRequestsPerHost(16); // in flight: the burst (10) and more; as PixClient sizes its own
    PinCounter pins = mode == Mode.VIRTUAL || mode == Mode.ASYNC && AsyncCallDispatcher.onVirtualThreads()
        || mode == Mode.RESTCLIENT && Runtime.version().feature() >= 21 ? PinCounter.start() : null;
    try (ConnectionSampler connections = ConnectionSampler.start(options.bacenUrl.getPort(), 20);
        PixClient pix = PixClient.builder(config).redisson(redisson).meterRegistry(registry).okHttpClient(base)
        .build()) {
      warmUp(pix::warmUp);
      String warmMinute = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMddHHmm"));
      pix.getPixAsync(String.format("E12345678%sW%02dC999999A", warmMinute, options.replicaId)).join();
      // one blocking call the way the mode makes them (on a virtual thread for VIRTUAL): classes loaded and
      // initialized before the run, as in a service that has served a call
      ExecutorService warm = mode == Mode.VIRTUAL ? virtualThreadPerTask() : Executors.newSingleThreadExecutor();
      warm.submit(() -> pix.getPix(String.format("E12345678%sW%02dC999998A", warmMinute, options.replicaId))).get();
      warm.shutdown();
      ExecutorService perCall = mode == Mode.SYNC || mode == Mode.RESTCLIENT && Runtime.version().feature() < 21
          ? Executors.newFixedThreadPool(calls) : mode != Mode.ASYNC && mode != Mode.WEBCLIENT
          ? virtualThreadPerTask() : null;
      SpringCalls spring = spring(perCall, registry, redisson);
      if (spring != null) {
        spring.call(String.format("E12345678%sW%02dC999997A", warmMinute, options.replicaId), () -> { }).join();
      }
      leftAt.clear();
      ReplicaProtocol protocol = new ReplicaProtocol(System.out);
      protocol.ready(options.id());
      ReplicaProtocol.Go go = protocol.next().orElseThrow();
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      int threadsBefore = threads.getThreadCount();
      String minute = LocalDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyyMMddHHmm"));
      while (System.nanoTime() < go.startNanos()) {
        Thread.sleep(1);
      }
      threads.resetPeakThreadCount();
      connections.reset();
      if (pins != null) {
        pins.runStarts();
      }
      Map<String, Integer> censusBefore = census();
      AtomicInteger served = new AtomicInteger();
      AtomicInteger tooMany = new AtomicInteger();
      AtomicInteger failed = new AtomicInteger();
      AtomicLong lastDone = new AtomicLong();
      Map<String, Integer> failures = new ConcurrentHashMap<>();
      List<CompletableFuture<?>> all = new ArrayList<>(calls);
      long start = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        String id = String.format("E12345678%sR%02dC%06dA", minute, options.replicaId, i); // 32 characters
        int call = i;
        CompletableFuture<?> done;
        if (mode == Mode.ASYNC) {
          askedAt.put(call, System.nanoTime());
          done = pix.getPixAsync(id);
        } else if (spring != null) {
          done = spring.call(id, () -> askedAt.put(call, System.nanoTime()));
        } else {
          done = CompletableFuture.runAsync(() -> {
            askedAt.put(call, System.nanoTime()); // when this call's thread asks: threads start in any order
            pix.getPix(id);
          }, perCall);
        }
        all.add(done.whenComplete((v, t) -> {
          Throwable cause = t == null ? null : t.getCause() != null ? t.getCause() : t;
          if (cause == null) {
            served.incrementAndGet();
          } else if (cause instanceof PixRateLimitedException) {
            tooMany.incrementAndGet();
          } else {
            failed.incrementAndGet();
            String kind = cause.getClass().getSimpleName();
            if (cause instanceof PixThrottledException p) {
              kind += "/" + p.reason().getClass().getSimpleName();
            } else if (cause.getMessage() != null) {
              kind += ": " + cause.getMessage().replaceAll("[0-9]+", "#");
            }
            failures.merge(kind, 1, Integer::sum);
          }
          lastDone.accumulateAndGet(System.nanoTime(), Math::max);
        }));
      }
      long queuedNanos = System.nanoTime() - start;
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).handle((v, t) -> null).join();
      int peak = threads.getPeakThreadCount();
      int connectionsPeak = connections.most();
      Map<String, Integer> census = census();
      if (perCall != null) {
        perCall.shutdown();
        perCall.awaitTermination(10, TimeUnit.SECONDS);
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("mode", mode.name());
      result.put("java", Runtime.version().toString());
      result.put("threadsBefore", threadsBefore);
      result.put("threadsPeak", peak);
      result.put("connectionsPeak", connectionsPeak);
      result.put("queuedMs", queuedNanos / 1e6);
      result.put("elapsedMs", (lastDone.get() - start) / 1e6);
      result.put("served", served.get());
      result.put("tooManyRequests", tooMany.get());
      result.put("failed", failed.get());
      result.put("failures", failures);
      result.put("leftAt", leftAt);
      result.put("askedAt", askedAt);
      result.put("rebooked", registry.find("bacen.throttle.rebooked").counters().stream()
          .mapToDouble(c -> c.count()).sum());
      result.put("latenessMaxMs", registry.find("bacen.throttle.lateness").timers().stream()
          .mapToDouble(t -> t.max(TimeUnit.MILLISECONDS)).max().orElse(0));
      result.put("pinned", pins == null ? "-" : pins.stop());
      result.put("threadsAtStart", censusBefore);
      result.put("threadsAtEnd", census);
      protocol.result(json.writeValueAsString(result));
    } finally {
      redisson.shutdown();
    }
    return 0;
  }

  /**
   * A client's warm-up ({@link PixClient#warmUp}, say), tried up to 3 times: a JVM that starts while the machine is
   * busy may open its Redis connections to a fresh server slower than the 2 s Redis timeout, and one cold start must
   * not end the whole bench.
   */
  static void warmUp(Runnable warmUp) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        warmUp.run();
        return;
      } catch (RuntimeException e) {
        if (attempt == 3) {
          throw e;
        }
        System.err.println("warm-up " + attempt + " failed, trying again: " + e);
        Thread.sleep(1_000);
      }
    }
  }

  /** RESTCLIENT's and WEBCLIENT's calls, on a throttle of their own over a bucket of the same settings. */
  private SpringCalls spring(ExecutorService perCall, SimpleMeterRegistry registry, RedissonClient redisson)
      throws IOException, InterruptedException {
    if (mode != Mode.RESTCLIENT && mode != Mode.WEBCLIENT) {
      return null;
    }
    Throttle throttle = Throttle.builder(RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.of(
        options.bucketName + "-spring", options.bucket.capacity, options.bucket.rate)))
        .maxWait(Duration.ofMillis(maxWaitMs)).meterRegistry(registry).build();
    String token = MockToken.fetch(java.net.http.HttpClient.newHttpClient(), options.bacenUrl, options.clientId,
        options.clientSecret);
    return mode == Mode.RESTCLIENT ? SpringCalls.restClient(throttle, options.pixUrl(), token, leftAt, perCall)
        : SpringCalls.webClient(throttle, options.pixUrl(), token, leftAt);
  }

  /** Live platform threads by name, digits dropped ("OkHttp Dispatcher", "redisson-netty-#-#", ...). */
  private static Map<String, Integer> census() {
    Map<String, Integer> byName = new java.util.TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      byName.merge(t.getName().replaceAll("[0-9]+", "#"), 1, Integer::sum);
    }
    return byName;
  }

  /** Java 21's {@code Executors.newVirtualThreadPerTaskExecutor()}, found at run time: this code is Java 17. */
  private static ExecutorService virtualThreadPerTask() {
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("--mode VIRTUAL needs Java 21 or later; this is " + Runtime.version(), e);
    }
  }

  /**
   * Counts JFR's {@code jdk.VirtualThreadPinned} events (every one: threshold 0): those that began before the run
   * (the warm-up: the JDK initializing its own pollers, classes loading) apart from those during it.
   */
  static final class PinCounter {
    private final jdk.jfr.consumer.RecordingStream stream;
    private final AtomicLong before = new AtomicLong();
    private final AtomicLong during = new AtomicLong();
    private volatile java.time.Instant runStart = java.time.Instant.MAX;

    private PinCounter(jdk.jfr.consumer.RecordingStream stream) {
      this.stream = stream;
    }

    static PinCounter start() {
      jdk.jfr.consumer.RecordingStream s = new jdk.jfr.consumer.RecordingStream();
      PinCounter counter = new PinCounter(s);
      s.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      s.onEvent("jdk.VirtualThreadPinned", e -> {
        boolean inRun = !e.getStartTime().isBefore(counter.runStart);
        if ((inRun ? counter.during : counter.before).incrementAndGet() <= 3) {
          System.err.println((inRun ? "pinned during the run: " : "pinned before the run: ") + e);
        }
      });
      s.startAsync();
      return counter;
    }

    void runStarts() {
      runStart = java.time.Instant.now();
    }

    /** Stops the recording, after flushing what was recorded; "during / before" the run. */
    String stop() throws IOException, InterruptedException {
      Thread.sleep(1_500); // events reach the stream once a second
      stream.close();
      return during.get() + " (warm-up: " + before.get() + ")";
    }
  }
}
