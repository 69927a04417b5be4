package io.pixquota.bench;

import io.pixquota.throttle.redis.RedissonStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixRateLimitedException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.net.URI;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import okhttp3.Call;
import okhttp3.EventListener;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import org.redisson.api.RedissonClient;

/**
 * One replica of one service of {@code bench shares}: its own Redisson client, bucket object, throttle (whose flow is
 * the service's name) and {@link PixClient}, as a process of its own would have; the bucket itself is the fleet's,
 * in Redis. Counts its calls' outcomes, and each served call's wait: from the moment it called the client to the
 * moment its request left (OkHttp's {@code requestHeadersEnd}, after the throttle).
 */
final class SharesService implements AutoCloseable {
  private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyyMMddHHmm");

  final String flow;
  private final int code;
  private final RedissonClient redisson;
  private final PixClient pix;
  private final AtomicInteger next = new AtomicInteger();
  private final Map<String, Long> leftAt = new ConcurrentHashMap<>();
  final LongAdder offered = new LongAdder();
  final LongAdder dropped = new LongAdder();
  final LongAdder served = new LongAdder();
  final LongAdder refused = new LongAdder();
  final LongAdder tooMany = new LongAdder();
  final LongAdder failed = new LongAdder();
  private final List<long[]> servedCalls = new ArrayList<>(); // {asked, left} nanos
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /**
   * @param code   two digits in every id of its calls: the service, then the replica
   * @param shares the bucket's shares; null: a bucket without (first come, first served)
   */
  SharesService(String flow, int code, URI pixUrl, String redisUrl, String bucketName, Map<String, Double> shares) {
    this.flow = flow;
    this.code = code;
    this.redisson = RedisAddress.parse(redisUrl).connect(Duration.ofSeconds(2), 40);
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson),
        TokenBucketConfig.custom(bucketName).limit(8, 9)
        .shares(shares).build());
    Throttle throttle = Throttle.builder(bucket).maxWait(Duration.ofSeconds(10)).flow(flow)
        .meterRegistry(registry).build();
    OkHttpClient ok = new OkHttpClient.Builder().eventListener(new EventListener() {
      @Override
      public void requestHeadersEnd(Call call, Request request) {
        String path = request.url().encodedPath();
        if (path.contains("/pix/")) {
          leftAt.putIfAbsent(path.substring(path.lastIndexOf('/') + 1), System.nanoTime());
        }
      }
    }).build();
    ok.dispatcher().setMaxRequestsPerHost(40);
    ok.dispatcher().setMaxRequests(64);
    PixClientConfig config = PixClientConfig.builder().baseUrl(pixUrl).credentials("demo", "demo-secret")
        .bucketName(bucketName).bucket(8, 9).maxWait(Duration.ofSeconds(10)).callTimeout(Duration.ofSeconds(40))
        .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1)).build();
    this.pix = PixClient.builder(config).redisson(redisson).okHttpClient(ok)
        .throttlingInterceptor(ThrottlingInterceptor.of(throttle)).build();
  }

  /** Loads the script and the token; one call, not counted. */
  void warmUp() throws Exception {
    pix.warmUp();
    pix.getPix(id());
  }

  private String id() {
    long nowMinute = System.currentTimeMillis() / 60_000;
    String[] cached = minute;
    if (cached == null || !cached[0].equals(Long.toString(nowMinute))) { // formatted once a minute, not per call
      cached = new String[] {Long.toString(nowMinute), "E12345678" + LocalDateTime.now(ZoneOffset.UTC).format(MINUTE)
          + "R" + (code < 10 ? "0" : "") + code + "C"};
      minute = cached;
    }
    String n = Integer.toString(next.incrementAndGet() % 1_000_000);
    return cached[1] + "000000".substring(n.length()) + n + "A"; // 32 characters
  }

  private volatile String[] minute; // {the minute since the epoch, the ids' prefix in it}

  /** One blocking call of this service, counted. */
  void call(Priority priority) {
    String id = id();
    offered.increment();
    long asked = System.nanoTime();
    try {
      pix.getPix(id, priority);
      servedCall(id, asked);
    } catch (RuntimeException e) {
      counted(e);
    }
  }

  /** One async call of this service, counted when it completes. */
  CompletableFuture<?> callAsync(Priority priority) {
    String id = id();
    offered.increment();
    long asked = System.nanoTime();
    return pix.getPixAsync(id, priority).handle((p, failure) -> {
      if (failure == null) {
        servedCall(id, asked);
      } else {
        counted(failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
      }
      return null;
    });
  }

  /** A served call's times; a refused one keeps nothing (a storm refuses millions: its heap stays flat). */
  private void servedCall(String id, long asked) {
    served.increment();
    Long left = leftAt.remove(id);
    synchronized (servedCalls) {
      servedCalls.add(new long[] {asked, left == null ? asked : left});
    }
  }

  private void counted(Throwable e) {
    if (e instanceof PixThrottledException) {
      refused.increment();
    } else if (e instanceof PixRateLimitedException) {
      tooMany.increment();
    } else {
      failed.increment();
    }
  }

  /** Each served call's {asked, left} nanos. */
  List<long[]> servedCalls() {
    synchronized (servedCalls) {
      return new ArrayList<>(servedCalls);
    }
  }

  @Override
  public void close() {
    pix.close();
    redisson.shutdown();
  }
}
