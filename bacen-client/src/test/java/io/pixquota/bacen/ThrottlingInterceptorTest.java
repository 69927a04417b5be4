package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/** The interceptor against a real Redis bucket and a real HTTP server (MockWebServer). */
@ExtendWith(RedisExtension.class)
class ThrottlingInterceptorTest {
  private final MockWebServer server = new MockWebServer();
  private RedissonClient redisson;
  private TestRedis redis;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    this.redisson = redis.newRedisson();
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private RedisTokenBucket bucket(String name, double capacity, double rate) {
    return RedisTokenBucket.create(redisson,
        TokenBucketConfig.custom(name).keyPrefix(redis.keyPrefix()).limit(capacity, rate).build());
  }

  private static OkHttpClient client(ThrottlingInterceptor interceptor) {
    return new OkHttpClient.Builder().addInterceptor(interceptor).build();
  }

  private Request get(String path) {
    return new Request.Builder().url(server.url(path)).build();
  }

  private static int execute(OkHttpClient client, Request request) throws IOException {
    try (Response r = client.newCall(request).execute()) {
      return r.code();
    }
  }

  @Test
  void noRequestReachesTheServerBeforeItsSlot() throws Exception {
    ArrivalRecorder recorder = ArrivalRecorder.ok();
    server.setDispatcher(recorder);
    double capacity = 2;
    double rate = 10;
    OkHttpClient client = client(ThrottlingInterceptor.builder(bucket("slots", capacity, rate))
        .meterRegistry(registry).build());
    ExecutorService pool = Executors.newFixedThreadPool(8);
    long t0 = System.nanoTime();
    List<Future<Integer>> calls = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      calls.add(pool.submit(() -> execute(client, get("/pix"))));
    }
    for (Future<Integer> f : calls) {
      assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }
    pool.shutdownNow();
    List<Long> arrivals = recorder.arrivals();
    Collections.sort(arrivals);
    assertThat(arrivals).hasSize(8);
    for (int k = (int) capacity; k < arrivals.size(); k++) {
      double earliestSeconds = (k - capacity + 1) / rate;
      assertThat((arrivals.get(k) - t0) / 1e9).as("arrival %d", k).isGreaterThanOrEqualTo(earliestSeconds - 0.002);
    }
    assertThat(recorder.count()).as("chain.proceed called exactly once per call").isEqualTo(8);
    assertThat(registry.get("bacen.throttle.permits").tag("result", "granted").counter().count()).isEqualTo(8);
    assertThat(registry.get("bacen.throttle.wait").tag("bucket", "slots").timer().count()).isEqualTo(8);
    assertThat(registry.get("bacen.throttle.wait").timer().max(TimeUnit.MILLISECONDS))
        .as("the last of 8 simultaneous callers waits about (8 - 2) / 10 s").isGreaterThan(450);
    assertThat(registry.get("bacen.throttle.lateness").timer().count()).isEqualTo(8);
  }

  @Test
  void aSlotBeyondTheMaxWaitIsRefusedWithAnIoExceptionAndNothingIsSent() throws Exception {
    server.setDispatcher(ArrivalRecorder.ok());
    OkHttpClient client = client(ThrottlingInterceptor.builder(bucket("refuse", 1, 0.1))
        .maxWait(Duration.ofMillis(100)).meterRegistry(registry).build());
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    assertThatThrownBy(() -> execute(client, get("/pix")))
        .isInstanceOfSatisfying(ThrottleRefusedException.class, e -> {
          assertThat(e.bucket()).isEqualTo("refuse");
          assertThat(e.maxWait()).isEqualTo(Duration.ofMillis(100));
          assertThat(e.neededWait().toMillis()).isBetween(9_000L, 10_000L);
          assertThat(e).hasMessageContaining("Bucket 'refuse' would make this call wait");
        });
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.permits").tag("result", "refused").counter().count()).isEqualTo(1);
  }

  @Test
  void theCallTimeoutShortensTheMaxWait() throws Exception {
    server.setDispatcher(ArrivalRecorder.ok());
    OkHttpClient client = new OkHttpClient.Builder().callTimeout(Duration.ofMillis(300))
        .addInterceptor(ThrottlingInterceptor.builder(bucket("timeout", 1, 1)).maxWait(Duration.ofSeconds(30)).build())
        .build();
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    assertThatThrownBy(() -> execute(client, get("/pix")))
        .isInstanceOfSatisfying(ThrottleRefusedException.class,
            e -> assertThat(e.maxWait()).isLessThanOrEqualTo(Duration.ofMillis(300)));
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void anInterruptedWaiterLetsGoAtOnceSendsNothingAndGivesItsTokensBack() throws Exception {
    server.setDispatcher(ArrivalRecorder.ok());
    RedisTokenBucket bucket = bucket("interrupt", 1, 0.5);
    OkHttpClient client = client(ThrottlingInterceptor.builder(bucket).build());
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicReference<Boolean> flagAfter = new AtomicReference<>();
    long[] releasedAt = new long[1];
    Thread waiter = new Thread(() -> {
      try {
        execute(client, get("/pix")); // its slot is 2 s away
      } catch (IOException e) {
        failure.set(e);
      } finally {
        releasedAt[0] = System.nanoTime();
        flagAfter.set(Thread.currentThread().isInterrupted());
      }
    });
    waiter.start();
    Thread.sleep(300);
    long interruptedAt = System.nanoTime();
    waiter.interrupt();
    waiter.join(2000);
    assertThat(failure.get()).isInstanceOf(InterruptedIOException.class);
    assertThat(flagAfter.get()).as("interrupt flag restored").isTrue();
    assertThat((releasedAt[0] - interruptedAt) / 1e6).as("ms to let go").isLessThan(50);
    assertThat(server.getRequestCount()).isEqualTo(1);
    // The 1 token booked for the unsent call came back: the bucket shows ~0 (refilled 0.15), not ~-1.
    assertThat(bucket.acquire(1, Duration.ofSeconds(5)).remaining()).isCloseTo(-1 + 0.15, within(0.1));
  }

  @Test
  void aCanceledAsyncCallLetsGoWithin50MsAndIsNeverSent() throws Exception {
    server.setDispatcher(ArrivalRecorder.ok());
    OkHttpClient client = client(ThrottlingInterceptor.builder(bucket("cancel", 1, 0.5)).build());
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    CompletableFuture<Long> failedAt = new CompletableFuture<>();
    Call call = client.newCall(get("/pix"));
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        failedAt.complete(System.nanoTime());
      }

      @Override
      public void onResponse(Call c, Response response) {
        response.close();
        failedAt.completeExceptionally(new AssertionError("the canceled call was sent"));
      }
    });
    Thread.sleep(300);
    long canceledAt = System.nanoTime();
    call.cancel();
    long at = failedAt.get(2, TimeUnit.SECONDS);
    assertThat((at - canceledAt) / 1e6).as("ms to let go").isLessThan(50);
    Thread.sleep(100);
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void asyncCallsAreThrottledToo() throws Exception {
    ArrivalRecorder recorder = ArrivalRecorder.ok();
    server.setDispatcher(recorder);
    OkHttpClient client = client(ThrottlingInterceptor.builder(bucket("async", 1, 20)).build());
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < 5; i++) {
      CompletableFuture<Integer> f = new CompletableFuture<>();
      client.newCall(get("/pix")).enqueue(new Callback() {
        @Override
        public void onFailure(Call c, IOException e) {
          f.completeExceptionally(e);
        }

        @Override
        public void onResponse(Call c, Response response) {
          f.complete(response.code());
          response.close();
        }
      });
      results.add(f);
    }
    for (CompletableFuture<Integer> f : results) {
      assertThat(f.get(5, TimeUnit.SECONDS)).isEqualTo(200);
    }
    List<Long> arrivals = recorder.arrivals();
    Collections.sort(arrivals);
    assertThat((arrivals.get(4) - t0) / 1e9).isGreaterThanOrEqualTo(4 / 20.0 - 0.002);
  }

  @Test
  void rulesPickTheBucketAndCostByMethodAndPath() throws Exception {
    server.setDispatcher(ArrivalRecorder.ok());
    RedisTokenBucket reads = bucket("reads", 10, 0.01);
    RedisTokenBucket writes = bucket("writes", 10, 0.01);
    OkHttpClient client = client(ThrottlingInterceptor.builder(reads)
        .rule("POST", "/api/v2/cob/.*", writes, 2.5).build());
    execute(client, get("/api/v2/cob/abc"));
    execute(client, new Request.Builder().url(server.url("/api/v2/cob/abc"))
        .post(RequestBody.create(new byte[0])).build());
    assertThat(reads.acquire(1, Duration.ZERO).remaining()).isCloseTo(8, within(0.05));
    assertThat(writes.acquire(1, Duration.ZERO).remaining()).isCloseTo(6.5, within(0.05));
  }

  @Test
  void aResponseThatCostsMoreIsChargedOnTheSameBucket() throws Exception {
    server.setDispatcher(new ArrivalRecorder(i -> new MockResponse.Builder().code(i == 0 ? 404 : 200).build()));
    RedisTokenBucket bucket = bucket("dict", 30, 0.01);
    OkHttpClient client = client(ThrottlingInterceptor.builder(bucket).responseCost(404, 20).responseCost(200, 0.5)
        .build());
    assertThat(execute(client, get("/entries/x"))).isEqualTo(404);
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("30 - 20 - 1").isCloseTo(9, within(0.05));
    assertThat(execute(client, get("/entries/y"))).isEqualTo(200);
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("9 - 0.5 - 1").isCloseTo(7.5, within(0.05));
  }

  @Test
  void builderRejectsBadValues() {
    RedisTokenBucket bucket = bucket("builder", 1, 1);
    assertThatThrownBy(() -> ThrottlingInterceptor.builder(bucket).maxWait(Duration.ofMillis(-5)))
        .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("maxWait must be >= 0, but was PT-0.005S");
    assertThatThrownBy(() -> ThrottlingInterceptor.builder(bucket).responseCost(99, 1))
        .hasMessage("status must be within 100..599, but was 99");
    assertThatThrownBy(() -> ThrottlingInterceptor.builder(bucket).rule("GET", "/x", bucket, 0))
        .hasMessage("cost must be positive and finite, but was 0.0");
    assertThatThrownBy(() -> ThrottlingInterceptor.builder(bucket)
        .redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 1.5, Duration.ofSeconds(1)))
        .hasMessage("localShare must be > 0 and <= 1, but was 1.5");
    assertThatThrownBy(() -> ThrottlingInterceptor.builder(null)).isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("defaultBucket cannot be null");
  }
}
