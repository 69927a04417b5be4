package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.harness.RespConnection;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.internal.LuaScript;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

/**
 * The interceptor against a real Redis bucket and a real HTTP server (MockWebServer), on a clock the test moves:
 * the bucket's client clock, the interceptor's sleeps and the server's record of arrivals all read {@link #time}.
 */
@ExtendWith(RedisExtension.class)
class ThrottlingInterceptorTest {
  private final MockWebServer server = new MockWebServer();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private FakeTime time = FakeTime.autoAdvancing(1_000);
  private RedissonClient redisson;
  private TestRedis redis;

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
    return RedisTesting.onFakeTime(redisson, redis.keyPrefix(), name, capacity, rate, time);
  }

  private ThrottleBuilder throttle(TokenBucket bucket) {
    return ThrottleTesting.builder(bucket, time).meterRegistry(registry);
  }

  private static OkHttpClient client(Throttle throttle) {
    return new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(throttle)).build();
  }

  private Request get(String path) {
    return new Request.Builder().url(server.url(path)).build();
  }

  private static int execute(OkHttpClient client, Request request) throws IOException {
    try (Response r = client.newCall(request).execute()) {
      return r.code();
    }
  }

  /** An async call: its status code, or the IOException its callback got. */
  private static CompletableFuture<Integer> enqueue(Call call) {
    CompletableFuture<Integer> result = new CompletableFuture<>();
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        result.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call c, Response response) {
        result.complete(response.code());
        response.close();
      }
    });
    return result;
  }

  /** Arrival times at the server on the fake clock, in ms after {@code t0Nanos}. */
  private ArrivalRecorder arrivalsOnTheFakeClock() {
    ArrivalRecorder recorder = new ArrivalRecorder(i -> new MockResponse.Builder().code(200).body("ok").build(),
        time::nanoTime);
    server.setDispatcher(recorder);
    return recorder;
  }

  private static List<Double> millisAfter(long t0Nanos, List<Long> arrivals) {
    List<Double> ms = new ArrayList<>();
    for (long a : arrivals) {
      ms.add((a - t0Nanos) / 1e6);
    }
    Collections.sort(ms);
    return ms;
  }

  @Test
  void aBlockingBatchCallWithNoSlotFreeSleepsHoldingNothingAndAsksAgain() throws Exception {
    ArrivalRecorder recorder = arrivalsOnTheFakeClock();
    RedisTokenBucket bucket = bucket("batch", 2, 10);
    OkHttpClient client = client(throttle(bucket).defaultPriority(Priority.BATCH).build());
    long t0 = time.nanoTime();
    for (int i = 0; i < 4; i++) {
      assertThat(execute(client, get("/sweep"))).isEqualTo(200);
    }
    assertThat(millisAfter(t0, recorder.arrivals())).containsExactly(0.0, 0.0, 100.0, 200.0);
    assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count()).isEqualTo(2);
    assertThat(bucket.acquire(1, Duration.ofSeconds(1)).waitTime()).as("nothing booked ahead: the next token")
        .isEqualTo(Duration.ofMillis(100));
    Request interactive = new Request.Builder().url(server.url("/status")).tag(Priority.class,
        Priority.INTERACTIVE).build();
    assertThat(execute(client, interactive)).as("a tag overrides the default class: booked ahead, not deferred")
        .isEqualTo(200);
    assertThat(millisAfter(t0, recorder.arrivals())).containsExactly(0.0, 0.0, 100.0, 200.0, 400.0);
    assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count()).isEqualTo(2);
    assertThat(registry.get("bacen.throttle.wait").tag("priority", "interactive").timer().totalTime(
        TimeUnit.MILLISECONDS)).isEqualTo(200);
  }

  @Test
  void aBatchHorizonLetsBatchBookThatFarAheadAndNoFurther() throws Exception {
    ArrivalRecorder recorder = arrivalsOnTheFakeClock();
    OkHttpClient client = client(throttle(bucket("horizon", 1, 10)).defaultPriority(Priority.BATCH)
        .horizon(Priority.BATCH, Duration.ofMillis(150)).build());
    long t0 = time.nanoTime();
    for (int i = 0; i < 3; i++) {
      assertThat(execute(client, get("/sweep"))).isEqualTo(200);
    }
    assertThat(millisAfter(t0, recorder.arrivals())).containsExactly(0.0, 100.0, 200.0);
    assertThat(registry.find("bacen.throttle.deferred").counter().count())
        .as("calls one after the other never need more than 100 ms").isZero();
    assertThatThrownBy(() -> Throttle.builder(bucket("bad", 1, 1))
        .horizon(Priority.BATCH, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("horizon of BATCH").hasMessageContaining("-0.001");
  }

  @Test
  void eachRequestReachesTheServerAtItsSlotAndNotBefore() throws Exception {
    ArrivalRecorder recorder = arrivalsOnTheFakeClock();
    OkHttpClient client = client(throttle(bucket("slots", 2, 10)).build());
    long t0 = time.nanoTime();
    for (int i = 0; i < 8; i++) {
      assertThat(execute(client, get("/pix"))).isEqualTo(200);
    }
    // burst 2 at once, then one every 1 / 10 s
    assertThat(millisAfter(t0, recorder.arrivals())).containsExactly(0.0, 0.0, 100.0, 200.0, 300.0, 400.0, 500.0,
        600.0);
    assertThat(recorder.count()).as("chain.proceed called exactly once per call").isEqualTo(8);
    assertThat(registry.get("bacen.throttle.permits").tag("result", "granted").counter().count()).isEqualTo(8);
    assertThat(registry.get("bacen.throttle.wait").tag("bucket", "slots").timer().count()).isEqualTo(8);
    assertThat(registry.get("bacen.throttle.wait").timer().max(TimeUnit.MILLISECONDS)).isEqualTo(100);
    assertThat(registry.get("bacen.throttle.wait").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(600);
    assertThat(registry.get("bacen.throttle.lateness").timer().max(TimeUnit.NANOSECONDS)).isZero();
  }

  @Test
  void aSlotBeyondTheMaxWaitIsRefusedWithAnIoExceptionAndNothingIsSent() throws Exception {
    arrivalsOnTheFakeClock();
    OkHttpClient client = client(throttle(bucket("refuse", 1, 0.1)).maxWait(Duration.ofMillis(100)).build());
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    assertThatThrownBy(() -> execute(client, get("/pix")))
        .isInstanceOfSatisfying(ThrottleRefusedException.class, e -> {
          assertThat(e.bucket()).isEqualTo("refuse");
          assertThat(e.maxWait()).isEqualTo(Duration.ofMillis(100));
          assertThat(e.neededWait()).isEqualTo(Duration.ofSeconds(10));
          assertThat(e).hasMessage("Bucket 'refuse' would make this call wait 10000 ms, more than its max wait "
              + "100 ms; the call was not sent");
        });
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.permits").tag("result", "refused").counter().count()).isEqualTo(1);
    assertThat(time.sleeps()).as("a refusal does not wait").isEmpty();
  }

  @Test
  void theCallTimeoutShortensTheMaxWait() throws Exception {
    arrivalsOnTheFakeClock();
    OkHttpClient client = new OkHttpClient.Builder().callTimeout(Duration.ofMillis(300))
        .addInterceptor(ThrottlingInterceptor.of(throttle(bucket("timeout", 1, 1)).maxWait(Duration.ofSeconds(30))
            .build())).build();
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    assertThatThrownBy(() -> execute(client, get("/pix")))
        .isInstanceOfSatisfying(ThrottleRefusedException.class, e -> {
          assertThat(e.maxWait()).isLessThanOrEqualTo(Duration.ofMillis(300)).isPositive();
          assertThat(e.neededWait()).isEqualTo(Duration.ofSeconds(1));
          assertThat(e).as("says which limit applied").hasMessage("Bucket 'timeout' would make this call wait 1000 "
              + "ms, more than the " + e.maxWait().toMillis() + " ms its call timeout left it (max wait 30000 ms); "
              + "the call was not sent");
        });
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void aBatchCallRefusedWhenItAsksAgainSaysWhatWasLeftOfItsMaxWait() throws Exception {
    time = FakeTime.manual(1_000);
    arrivalsOnTheFakeClock();
    RedisTokenBucket bucket = bucket("batch-left", 1, 10);
    OkHttpClient client = client(throttle(bucket).defaultPriority(Priority.BATCH).maxWait(Duration.ofMillis(150))
        .build());
    assertThat(execute(client, get("/sweep"))).isEqualTo(200);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread batch = new Thread(() -> {
      try {
        execute(client, get("/sweep")); // no slot free now: it sleeps 100 ms holding nothing, then asks again
      } catch (IOException e) {
        failure.set(e);
      }
    });
    batch.start();
    time.awaitScheduled(1); // deferred: asks again when the bucket said a slot is free
    assertThat(bucket.acquire(1, Duration.ofSeconds(1)).waitTime()).as("an interactive call takes that slot")
        .isEqualTo(Duration.ofMillis(100));
    time.advanceMillis(100);
    batch.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(failure.get()).isInstanceOf(ThrottleRefusedException.class).hasMessage("Bucket 'batch-left' would "
        + "make this call wait 100 ms, more than the 50 ms left of its max wait 150 ms after 100 ms waiting to ask "
        + "again within its BATCH horizon; the call was not sent");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void anInterruptedWaiterLetsGoBeforeItsSlotSendsNothingAndGivesItsTokensBack() throws Exception {
    time = FakeTime.manual(1_000);
    arrivalsOnTheFakeClock();
    RedisTokenBucket bucket = bucket("interrupt", 1, 0.5);
    OkHttpClient client = client(throttle(bucket).build());
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean flagAfter = new AtomicBoolean();
    Thread waiter = new Thread(() -> {
      try {
        execute(client, get("/pix")); // its slot is 2 s away
      } catch (IOException e) {
        failure.set(e);
      } finally {
        flagAfter.set(Thread.currentThread().isInterrupted());
      }
    });
    long before = time.nanoTime();
    waiter.start();
    time.awaitScheduled(1); // booked: parked until its slot
    waiter.interrupt();
    waiter.join(TimeUnit.SECONDS.toMillis(10));
    assertThat(waiter.isAlive()).isFalse();
    assertThat(failure.get()).isInstanceOf(InterruptedIOException.class)
        .hasMessage("interrupted while waiting for its slot; not sent");
    assertThat(flagAfter.get()).as("interrupt flag restored").isTrue();
    assertThat(time.nanoTime()).as("let go without waiting for any of its slot").isEqualTo(before);
    assertThat(server.getRequestCount()).isEqualTo(1);
    // The token booked for the unsent call came back (sent without waiting for Redis): at 0 again, not at -1.
    awaitGivenBack(bucket);
    assertThat(bucket.acquire(1, Duration.ofSeconds(5)).remaining()).isCloseTo(-1, within(1e-9));
  }

  @Test
  void aCanceledAsyncCallLetsGoAtItsNextCheckAndIsNeverSent() throws Exception {
    time = FakeTime.manual(1_000);
    arrivalsOnTheFakeClock();
    RedisTokenBucket bucket = bucket("cancel", 1, 0.5);
    OkHttpClient client = client(throttle(bucket).build());
    assertThat(execute(client, get("/pix"))).isEqualTo(200);
    Call call = client.newCall(get("/pix"));
    CompletableFuture<Integer> result = enqueue(call);
    time.awaitScheduled(1); // booked: parked until its slot
    call.cancel(); // seen by the throttle's cancel watch within its 10 ms, on the real clock
    time.advanceMillis(10); // a two-hundredth of the way to its slot
    assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(InterruptedIOException.class)
        .hasMessage("call canceled while waiting for its slot; not sent");
    assertThat(server.getRequestCount()).isEqualTo(1);
    awaitGivenBack(bucket);
    assertThat(bucket.acquire(1, Duration.ofSeconds(5)).remaining()).as("its token given back")
        .isCloseTo(-1 + 0.005, within(1e-9));
  }

  /** The bucket booked one slot ahead (-1 token) and its give-back (sent without waiting for Redis) has landed. */
  private static void awaitGivenBack(RedisTokenBucket bucket) throws InterruptedException {
    Awaits.until("the token given back", Duration.ofSeconds(10), () -> {
      try {
        return bucket.state().tokens() > -0.5;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @Test
  void callersWaitingOnSlotsOfALostStateBookAgainInTheNewOne() throws Exception {
    time = FakeTime.manual(1_000);
    ArrivalRecorder recorder = arrivalsOnTheFakeClock();
    RedisTokenBucket bucket = bucket("lost", 1, 1);
    OkHttpClient client = client(throttle(bucket).build());
    long t0 = time.nanoTime();
    assertThat(execute(client, get("/a"))).isEqualTo(200); // drains the bucket
    List<Thread> waiters = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      Thread w = new Thread(() -> {
        try {
          execute(client, get("/w"));
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      });
      w.start();
      waiters.add(w);
      time.awaitScheduled(i + 1); // booked 1 s and 2 s ahead, in that order, parked until then
    }
    try (RespConnection admin = redis.rawConnection()) {
      admin.call("DEL", redis.keyPrefix() + "{lost}:tb"); // what a Redis restarted empty looks like
    }
    assertThat(execute(client, get("/b"))).as("the new state starts full").isEqualTo(200);
    // each waiter, at its slot, finds its state gone and books again in the new one, after /b: 1 s and 2 s
    time.advanceMillis(1_000);
    recorder.awaitArrivals(3);
    time.advanceMillis(1_000);
    recorder.awaitArrivals(4);
    for (Thread w : waiters) {
      w.join(TimeUnit.SECONDS.toMillis(10));
    }
    assertThat(millisAfter(t0, recorder.arrivals())).as("a and b at once, the waiters at their new slots")
        .containsExactly(0.0, 0.0, 1_000.0, 2_000.0);
    assertThat(registry.get("bacen.throttle.state.lost").counter().count()).isEqualTo(2);
    assertThat(registry.get("bacen.throttle.rebooked").counter().count()).as("none was late").isZero();
    assertThat(registry.get("bacen.throttle.script.noscript").functionCounter().count())
        .as("the process's NOSCRIPT count, read live").isEqualTo(LuaScript.TOKEN_BUCKET.noScriptCount());
  }

  @Test
  void asyncCallsAreThrottledToo() throws Exception {
    ArrivalRecorder recorder = arrivalsOnTheFakeClock();
    OkHttpClient client = client(throttle(bucket("async", 1, 20)).build());
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    long t0 = time.nanoTime();
    for (int i = 0; i < 5; i++) {
      results.add(enqueue(client.newCall(get("/pix"))));
    }
    for (CompletableFuture<Integer> f : results) {
      assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }
    List<Double> arrivals = millisAfter(t0, recorder.arrivals());
    assertThat(arrivals).hasSize(5);
    assertThat(arrivals.get(4)).as("the fifth slot is 4 / 20 s after the first").isGreaterThanOrEqualTo(200.0);
  }

  @Test
  void rulesPickTheBucketAndCostByMethodAndPath() throws Exception {
    arrivalsOnTheFakeClock();
    RedisTokenBucket reads = bucket("reads", 10, 0.01);
    RedisTokenBucket writes = bucket("writes", 10, 0.01);
    OkHttpClient client = client(throttle(reads).rule("POST", "/api/v2/cob/.*", writes, 2.5).build());
    execute(client, get("/api/v2/cob/abc"));
    execute(client, new Request.Builder().url(server.url("/api/v2/cob/abc"))
        .post(RequestBody.create(new byte[0])).build());
    assertThat(reads.acquire(1, Duration.ZERO).remaining()).isCloseTo(8, within(1e-9));
    assertThat(writes.acquire(1, Duration.ZERO).remaining()).isCloseTo(6.5, within(1e-9));
  }

  @Test
  void aResponseThatCostsMoreIsChargedOnTheSameBucket() throws Exception {
    server.setDispatcher(new ArrivalRecorder(i -> new MockResponse.Builder().code(i == 0 ? 404 : 200).build(),
        time::nanoTime));
    RedisTokenBucket bucket = bucket("dict", 30, 0.01);
    OkHttpClient client = client(throttle(bucket).responseCost(404, 20).responseCost(200, 0.5).build());
    assertThat(execute(client, get("/entries/x"))).isEqualTo(404);
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("30 - 20 - 1").isCloseTo(9, within(1e-9));
    assertThat(execute(client, get("/entries/y"))).isEqualTo(200);
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("9 - 0.5 - 1").isCloseTo(7.5, within(1e-9));
  }

  @Test
  void localFallbackTakesAnyTokenBucket() throws Exception {
    arrivalsOnTheFakeClock();
    LocalTokenBucket local = new LocalTokenBucket("local", List.of(Limit.of(2, 1)), time::nanoTime);
    OkHttpClient client = client(throttle(local).rule("GET", "/a", local, 1).rule(null, "/b", local, 1)
        .maxWait(Duration.ZERO).redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 0.5, Duration.ofSeconds(1))
        .build());
    assertThat(execute(client, get("/a"))).isEqualTo(200);
    assertThat(execute(client, get("/b"))).isEqualTo(200);
    assertThatThrownBy(() -> execute(client, get("/c"))).isInstanceOf(ThrottleRefusedException.class);
    assertThat(registry.get("bacen.throttle.fallback.active").gauge().value()).as("this bucket always answers")
        .isZero();
  }

  @Test
  void builderRejectsBadValues() {
    RedisTokenBucket bucket = bucket("builder", 1, 1);
    assertThatThrownBy(() -> Throttle.builder(bucket).maxWait(Duration.ofMillis(-5)))
        .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("maxWait must be >= 0, but was PT-0.005S");
    assertThatThrownBy(() -> Throttle.builder(bucket).responseCost(99, 1))
        .hasMessage("status must be within 100..599, but was 99");
    assertThatThrownBy(() -> Throttle.builder(bucket).rule("GET", "/x", bucket, 0))
        .hasMessage("cost must be positive and finite, but was 0.0");
    assertThatThrownBy(() -> Throttle.builder(bucket)
        .redisUnavailable(RedisUnavailablePolicy.LOCAL_FALLBACK, 1.5, Duration.ofSeconds(1)))
        .hasMessage("localShare must be > 0 and <= 1, but was 1.5");
    assertThatThrownBy(() -> Throttle.builder(null)).isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("defaultBucket cannot be null");
  }

  @Test
  void theClassesOkHttpsRetryCheckTestsAMissedSlotAgainstAreLoadedAheadAllFoundInTheseReleases() {
    // a name this OkHttp or Kotlin no longer has would leave its first loading on a call's path, pinning a carrier
    assertThat(ThrottlingInterceptor.loadedAhead()).hasSize(10)
        .extracting(Class::getSimpleName).contains("SlotMissedException", "TransportRetryException",
            "ConnectionShutdownException", "EmptyIterator");
  }
}
