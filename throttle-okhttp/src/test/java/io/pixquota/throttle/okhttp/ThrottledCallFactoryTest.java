package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * Async calls through {@link ThrottledCallFactory} against a real Redis bucket (booked with Redisson's async EVALSHA)
 * and a real HTTP server, on a clock the test moves by hand: nothing waits on a thread, the timer's tasks run when
 * the test moves the clock past them, and the server notes each arrival on the same clock.
 */
@ExtendWith(RedisExtension.class)
class ThrottledCallFactoryTest {
  private final MockWebServer server = new MockWebServer();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.manual(1_000);
  private final List<String> arrivedPaths = new ArrayList<>();
  private final List<Long> arrivedAt = new ArrayList<>();
  private RedissonClient redisson;
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    this.redisson = redis.newRedisson();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        synchronized (arrivedPaths) {
          arrivedPaths.add(request.getUrl().encodedPath());
          arrivedAt.add(time.nanoTime());
          arrivedPaths.notifyAll();
        }
        return new MockResponse.Builder().code(200).body("ok").build();
      }
    });
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private RedisTokenBucket bucket(String name, double capacity, double rate) {
    return RedisTesting.onFakeTime(redisson, redis.keyPrefix(), name, capacity, rate, time);
  }

  private ThrottledCallFactory calls(ThrottleBuilder throttle) {
    return ThrottledCallFactory.of(new OkHttpClient.Builder()
        .addNetworkInterceptor(ThrottlingInterceptor.of(ThrottleTesting.onTime(throttle.meterRegistry(registry), time)
            .build())).build());
  }

  private Request get(String path) {
    return new Request.Builder().url(server.url(path)).build();
  }

  /** An async call: its status code, or the IOException its callback got. */
  private static CompletableFuture<Integer> enqueue(Call call) {
    CompletableFuture<Integer> result = new CompletableFuture<>();
    call.enqueue(new Callback() {
      @Override
      public void onFailure(Call c, IOException e) {
        assertThat(c).isSameAs(call);
        result.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call c, Response response) {
        assertThat(c).isSameAs(call);
        result.complete(response.code());
        response.close();
      }
    });
    return result;
  }

  private void awaitArrivals(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    synchronized (arrivedPaths) {
      while (arrivedPaths.size() < n) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(arrivedPaths.size() + " requests arrived, expected " + n);
        }
        TimeUnit.NANOSECONDS.timedWait(arrivedPaths, left);
      }
    }
  }

  /** Waits (really, at most 10 s) until {@code n} calls wait for their slot on the timer. */
  private void awaitWaiting(int n) throws InterruptedException {
    Awaits.until(n + " calls waiting on the timer", Duration.ofSeconds(10), () -> time.scheduledTasks() == n);
  }

  private List<Double> arrivalMillisAfter(long t0) {
    synchronized (arrivedPaths) {
      return arrivedAt.stream().map(a -> (a - t0) / 1e6).toList();
    }
  }

  @Test
  void enqueuedCallsWaitWithoutAThreadAndReachTheServerOnTheirSlotsInArrivalOrder() throws Exception {
    ThrottledCallFactory calls = calls(Throttle.builder(bucket("async", 2, 10)));
    long t0 = time.nanoTime();
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      results.add(enqueue(calls.newCall(get("/pix/" + i))));
      if (i < 2) {
        awaitArrivals(i + 1); // the burst leaves at once (two sent at one instant may arrive in either order)
      } else {
        awaitWaiting(i - 1); // booked, one after the other, and waiting on the timer
      }
    }
    assertThat(time.sleepCalls()).as("no thread sleeps towards a slot").isZero();
    assertThat(time.scheduledTasks()).as("six calls wait, on the timer only").isEqualTo(6);
    for (int step = 1; step <= 6; step++) {
      time.advanceMillis(100);
      awaitArrivals(2 + step);
    }
    for (CompletableFuture<Integer> r : results) {
      assertThat(r.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }
    assertThat(arrivalMillisAfter(t0)).as("burst 2 at once, then one every 1 / 10 s, none early")
        .containsExactly(0.0, 0.0, 100.0, 200.0, 300.0, 400.0, 500.0, 600.0);
    assertThat(arrivedPaths).as("in the order they were enqueued").containsExactly("/pix/0", "/pix/1", "/pix/2",
        "/pix/3", "/pix/4", "/pix/5", "/pix/6", "/pix/7");
    assertThat(registry.get("bacen.throttle.wait").timer().count()).as("the same meters as the blocking path")
        .isEqualTo(8);
    assertThat(registry.get("bacen.throttle.wait").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(2_100);
    assertThat(registry.get("bacen.throttle.permits").tag("result", "granted").counter().count()).isEqualTo(8);
    assertThat(registry.get("bacen.throttle.lateness").timer().max(TimeUnit.NANOSECONDS)).isZero();
    assertThat(time.sleepCalls()).isZero();
  }

  @Test
  void aCancelWhileWaitingSendsNothingAndGivesTheTokensBack() throws Exception {
    RedisTokenBucket bucket = bucket("cancel", 1, 1);
    ThrottledCallFactory calls = calls(Throttle.builder(bucket));
    assertThat(enqueue(calls.newCall(get("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    Call waiting = calls.newCall(get("/second"));
    CompletableFuture<Integer> second = enqueue(waiting);
    awaitWaiting(1); // booked at 1 s
    waiting.cancel();
    assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(InterruptedIOException.class)
        .hasMessage("call canceled while waiting for its slot; not sent");
    assertThat(waiting.isCanceled()).isTrue();
    assertThat(time.scheduledTasks()).as("its timer task taken back").isZero();
    time.advanceMillis(5_000);
    assertThat(server.getRequestCount()).as("never sent, even after its slot").isEqualTo(1);
  }

  @Test
  void theRefundOfACancelledCallReachesTheBucket() throws Exception {
    RedisTokenBucket bucket = bucket("refund", 1, 0.5);
    ThrottledCallFactory calls = calls(Throttle.builder(bucket));
    assertThat(enqueue(calls.newCall(get("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    Call waiting = calls.newCall(get("/second"));
    CompletableFuture<Integer> second = enqueue(waiting);
    awaitWaiting(1); // booked at 2 s: tokens -1
    waiting.cancel();
    assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(InterruptedIOException.class);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    double left;
    do { // the refund is sent without waiting for it; a charge of almost nothing reads the balance
      left = bucket.charge(1e-9) + 1e-9;
    } while (left < -0.5 && System.nanoTime() < deadline);
    assertThat(left).as("back at 0, not at -1").isCloseTo(0, within(1e-6));
  }

  @Test
  void aSlotBeyondTheMaxWaitFailsTheCallbackAndSendsNothing() throws Exception {
    ThrottledCallFactory calls = calls(Throttle.builder(bucket("refuse", 1, 0.1))
        .maxWait(Duration.ofMillis(100)));
    assertThat(enqueue(calls.newCall(get("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    CompletableFuture<Integer> refused = enqueue(calls.newCall(get("/second")));
    assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).cause()
        .isInstanceOfSatisfying(ThrottleRefusedException.class, e -> {
          assertThat(e.neededWait()).isEqualTo(Duration.ofSeconds(10));
          assertThat(e.maxWait()).isEqualTo(Duration.ofMillis(100));
        });
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.permits").tag("result", "refused").counter().count()).isEqualTo(1);
  }

  private Request batch(String path) {
    return new Request.Builder().url(server.url(path)).tag(Priority.class, Priority.BATCH).build();
  }

  @Test
  void anInteractiveCallLeavesBeforeBatchCallsThatAskedEarlierAndBatchTakesEverySlotLeft() throws Exception {
    RedisTokenBucket bucket = bucket("classes", 2, 10);
    ThrottledCallFactory calls = calls(Throttle.builder(bucket));
    long t0 = time.nanoTime();
    List<CompletableFuture<Integer>> results = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      results.add(enqueue(calls.newCall(batch("/batch/" + i))));
      if (i < 2) {
        awaitArrivals(i + 1); // the burst leaves at once
      } else {
        awaitWaiting(i - 1); // no slot free now: the first is told to ask again at 100 ms, the others wait in line
      }                      // behind it (each with a timer for its max wait), holding nothing
    }
    assertThat(bucket.acquire(1, Duration.ZERO).waitTime()).as("three batch calls wait, none booked ahead: the "
        + "next token is 100 ms away, not 400").isEqualTo(Duration.ofMillis(100)); // a refusal writes nothing
    time.advanceMillis(50);
    results.add(enqueue(calls.newCall(get("/interactive"))));
    awaitWaiting(4); // booked at 100 ms: the next token, not behind the three batch calls
    time.advanceMillis(50); // 100 ms: the interactive call leaves; the batch calls ask again and wait for 200 ms
    awaitArrivals(3);
    awaitWaiting(3);
    for (int step = 1; step <= 3; step++) {
      time.advanceMillis(100); // one batch call per slot, in the order they asked
      awaitArrivals(3 + step);
      awaitWaiting(3 - step);
    }
    for (CompletableFuture<Integer> r : results) {
      assertThat(r.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    }
    assertThat(arrivalMillisAfter(t0)).containsExactly(0.0, 0.0, 100.0, 200.0, 300.0, 400.0);
    assertThat(arrivedPaths.subList(2, 6)).containsExactly("/interactive", "/batch/2", "/batch/3", "/batch/4");
    assertThat(registry.get("bacen.throttle.wait").tag("priority", "interactive").timer().totalTime(
        TimeUnit.MILLISECONDS)).as("one slot at most: 50 ms, against 350 ms behind the batch calls").isEqualTo(50);
    assertThat(registry.get("bacen.throttle.wait").tag("priority", "batch").timer().count()).isEqualTo(5);
    assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count())
        .as("one asker at a time: batch/2 at 0 and 100 ms, batch/3 at 200, batch/4 at 300 (9 if all asked)")
        .isEqualTo(4);
    assertThat(time.sleepCalls()).as("no thread sleeps, batch included").isZero();
  }

  @Test
  void aCancelWhileWaitingToAskAgainSendsNothingAndBooksNothing() throws Exception {
    RedisTokenBucket bucket = bucket("cancel-batch", 1, 1);
    ThrottledCallFactory calls = calls(Throttle.builder(bucket));
    assertThat(enqueue(calls.newCall(batch("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    Call waiting = calls.newCall(batch("/second"));
    CompletableFuture<Integer> second = enqueue(waiting);
    awaitWaiting(1); // to ask again at 1 s
    waiting.cancel();
    assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(InterruptedIOException.class)
        .hasMessage("call canceled while waiting to ask for its slot; not sent");
    assertThat(time.scheduledTasks()).as("its timer task taken back").isZero();
    time.advanceMillis(5_000);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(bucket.acquire(1, Duration.ZERO).granted()).as("nothing was booked: full again").isTrue();
  }

  @Test
  void aBatchCallCancelledOrOutOfTimeInLineLeavesTheLineWithoutAskingAndTheNextAsks() throws Exception {
    RedisTokenBucket bucket = bucket("line", 1, 10);
    ThrottledCallFactory calls = calls(Throttle.builder(bucket).maxWait(Duration.ofMillis(250)));
    assertThat(enqueue(calls.newCall(batch("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    CompletableFuture<Integer> second = enqueue(calls.newCall(batch("/second"))); // asks: told 100 ms
    Call third = calls.newCall(batch("/third"));
    CompletableFuture<Integer> thirdResult = enqueue(third); // in line behind the second
    CompletableFuture<Integer> fourth = enqueue(calls.newCall(batch("/fourth"))); // in line behind the third
    awaitWaiting(3);
    third.cancel();
    assertThatThrownBy(() -> thirdResult.get(10, TimeUnit.SECONDS)).cause()
        .isInstanceOf(InterruptedIOException.class)
        .hasMessage("call canceled while waiting to ask for its slot; not sent");
    time.advanceMillis(100); // the second books and leaves; the fourth asks (the third left the line): told 100 ms
    awaitArrivals(2);
    assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    time.advanceMillis(100);
    awaitArrivals(3);
    assertThat(fourth.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(arrivedPaths).containsExactly("/first", "/second", "/fourth");
    assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count())
        .as("the second and the fourth, once each")
        .isEqualTo(2);

    CompletableFuture<Integer> fifth = enqueue(calls.newCall(batch("/fifth"))); // asks at 200 ms: told 100 ms
    CompletableFuture<Integer> sixth = enqueue(calls.newCall(batch("/sixth"))); // in line, max wait 250 ms
    awaitWaiting(2);
    time.advanceMillis(100); // the fifth books (300 ms); the sixth asks: told 100 ms, within what is left of its wait
    awaitArrivals(4);
    assertThat(fifth.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    awaitWaiting(1); // the sixth, told to ask again at 400 ms
    time.advanceMillis(100);
    assertThat(sixth.get(10, TimeUnit.SECONDS)).isEqualTo(200);

    CompletableFuture<Integer> seventh = enqueue(calls.newCall(batch("/seventh"))); // told 100 ms
    Call hurried = calls.newCall(batch("/eighth"));
    hurried.timeout().timeout(50, TimeUnit.MILLISECONDS); // its max wait: what is left of its call timeout
    CompletableFuture<Integer> eighth = enqueue(hurried); // in line behind the seventh
    awaitWaiting(2);
    time.advanceMillis(60); // its 50 ms run out while it is still in line
    assertThatThrownBy(() -> eighth.get(10, TimeUnit.SECONDS)).cause()
        .isInstanceOf(ThrottleRefusedException.class)
        .hasMessageContaining("waited its max wait 50 ms behind this process's other BATCH calls");
    time.advanceMillis(40);
    assertThat(seventh.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(arrivedPaths).doesNotContain("/eighth");
  }

  @Test
  void aBatchCallWhoseNextFreeSlotIsBeyondItsMaxWaitIsRefusedAtOnce() throws Exception {
    ThrottledCallFactory calls = calls(Throttle.builder(bucket("refuse-batch", 1, 1))
        .maxWait(Duration.ofMillis(500)));
    assertThat(enqueue(calls.newCall(batch("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    CompletableFuture<Integer> refused = enqueue(calls.newCall(batch("/second")));
    assertThatThrownBy(() -> refused.get(10, TimeUnit.SECONDS)).cause()
        .isInstanceOfSatisfying(ThrottleRefusedException.class,
            e -> assertThat(e.neededWait()).isEqualTo(Duration.ofSeconds(1)));
    assertThat(registry.get("bacen.throttle.permits").tag("priority", "batch").tag("result", "refused").counter()
        .count()).isEqualTo(1);
  }

  @Test
  void aCallWhoseTimerFiresLateBooksAFreshSlotInsteadOfLeavingWithTheNext() throws Exception {
    ThrottledCallFactory calls = calls(Throttle.builder(bucket("late", 1, 10))
        .lateLimit(Duration.ofMillis(50)));
    long t0 = time.nanoTime();
    assertThat(enqueue(calls.newCall(get("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    CompletableFuture<Integer> second = enqueue(calls.newCall(get("/second")));
    awaitWaiting(1); // its slot at 100 ms
    time.advanceMillis(300); // the timer runs 200 ms after the slot: too late to leave on it; it books again,
    awaitArrivals(2); // and the bucket, refilled by then (-1 + 3 tokens, capped at 1), gives it a slot at once
    assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(registry.get("bacen.throttle.rebooked").counter().count()).isEqualTo(1);
    assertThat(arrivalMillisAfter(t0)).containsExactly(0.0, 300.0);
  }

  @Test
  void aCallHeldUpBetweenTheTimerAndTheSendBooksAgainWithoutAThreadAndSendsOnce() throws Exception {
    AtomicInteger held = new AtomicInteger();
    ThrottlingInterceptor throttle = ThrottlingInterceptor.of(ThrottleTesting.builder(bucket("missed", 1, 10), time)
        .lateLimit(Duration.ofMillis(50)).meterRegistry(registry).build());
    ThrottledCallFactory calls = ThrottledCallFactory.of(new OkHttpClient.Builder()
        .addInterceptor(chain -> { // the dispatcher's queue, or a slow connection set-up, for the second call once
          if (chain.request().url().encodedPath().equals("/second") && held.getAndIncrement() == 0) {
            time.advanceMillis(200);
          }
          return chain.proceed(chain.request());
        })
        .addNetworkInterceptor(throttle).build());
    long t0 = time.nanoTime();
    assertThat(enqueue(calls.newCall(get("/first"))).get(10, TimeUnit.SECONDS)).isEqualTo(200);
    CompletableFuture<Integer> second = enqueue(calls.newCall(get("/second")));
    awaitWaiting(1); // its slot at 100 ms
    time.advanceMillis(100); // on time at the timer; held up 200 ms before the send: 200 ms late at the throttle,
    awaitArrivals(2); // not sent then: booked again (the bucket refilled meanwhile: a slot at once) and sent
    assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(time.sleepCalls()).as("no thread slept: not the dispatcher's either").isZero();
    assertThat(arrivalMillisAfter(t0)).containsExactly(0.0, 300.0);
    assertThat(server.getRequestCount()).isEqualTo(2);
    assertThat(registry.get("bacen.throttle.rebooked").counter().count()).isEqualTo(1);
  }

  @Test
  void executeIsTheBlockingPathAndACallRunsOnce() throws Exception {
    ThrottledCallFactory calls = calls(Throttle.builder(bucket("sync", 5, 5)));
    Call call = calls.newCall(get("/sync"));
    try (Response r = call.execute()) {
      assertThat(r.code()).isEqualTo(200);
    }
    assertThat(call.isExecuted()).isTrue();
    assertThatThrownBy(call::execute).isInstanceOf(IllegalStateException.class).hasMessage("Already Executed");
    assertThatThrownBy(() -> call.enqueue(null)).isInstanceOf(NullPointerException.class);
    assertThat(call.clone().isExecuted()).isFalse();
    assertThat(call.toString()).doesNotContain("/sync");
    Call canceledFirst = calls.newCall(get("/never"));
    canceledFirst.cancel();
    assertThatThrownBy(() -> enqueue(canceledFirst).get(10, TimeUnit.SECONDS)).cause()
        .isInstanceOf(IOException.class).hasMessage("Canceled");
    assertThat(server.getRequestCount()).as("only the executed call").isEqualTo(1);
  }

  @Test
  void aClientWithoutTheInterceptorIsRefused() {
    assertThatThrownBy(() -> ThrottledCallFactory.of(new OkHttpClient()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("client has no ThrottlingInterceptor: add one with OkHttpClient.Builder.addNetworkInterceptor");
  }
}
