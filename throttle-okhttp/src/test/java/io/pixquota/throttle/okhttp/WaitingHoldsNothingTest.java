package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.StdErrCapture;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.EventListener;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * What a blocking call holds while it waits for its slot (DOMAIN.md, "What a waiting call may hold"): counted by
 * OkHttp itself, with an event listener on every connection a call acquires and releases, against a real Redis bucket
 * and a real HTTP server, on a clock the test moves by hand, so that the waiters wait as long as the test says.
 */
@ExtendWith(RedisExtension.class)
class WaitingHoldsNothingTest {
  private static final int WAITERS = 20;
  private final MockWebServer server = new MockWebServer();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.manual(1_000);
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicInteger mostHeld = new AtomicInteger();
  private final ExecutorService callers = Executors.newFixedThreadPool(WAITERS);
  private RedissonClient redisson;
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    this.redisson = redis.newRedisson();
    for (int i = 0; i < WAITERS + 1; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    }
    server.start();
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    callers.shutdownNow();
    callers.awaitTermination(10, TimeUnit.SECONDS);
    server.close();
  }

  /** A client with the throttle as a network interceptor (as PixClient adds it), counting connections held. */
  private OkHttpClient client(String bucketName) {
    return client(bucketName, 1);
  }

  private OkHttpClient client(String bucketName, int capacity) {
    RedisTokenBucket bucket = RedisTesting.onFakeTime(redisson, redis.keyPrefix(), bucketName, capacity, 10, time);
    return new OkHttpClient.Builder().eventListener(new EventListener() {
      @Override
      public void connectionAcquired(Call call, Connection connection) {
        mostHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
      }

      @Override
      public void connectionReleased(Call call, Connection connection) {
        held.decrementAndGet();
      }
    }).addNetworkInterceptor(ThrottlingInterceptor.of(ThrottleTesting.builder(bucket, time).meterRegistry(registry)
        .build())).build();
  }

  private Request get(String path) {
    return new Request.Builder().url(server.url(path)).build();
  }

  private List<CompletableFuture<Integer>> blockingCalls(Call.Factory calls, int n) {
    List<CompletableFuture<Integer>> done = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Call call = calls.newCall(get("/pix/" + i));
      done.add(CompletableFuture.supplyAsync(() -> {
        try (Response r = call.execute()) {
          return r.code();
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }, callers));
    }
    return done;
  }

  @Test
  void blockingCallsOfTheFactoryWaitHoldingNoConnectionAndTakeOneOnlyOnTheirSlot() throws Exception {
    OkHttpClient client = client("factory-blocking");
    ThrottledCallFactory calls = ThrottledCallFactory.of(client);
    try (Response first = calls.newCall(get("/first")).execute()) {
      assertThat(first.code()).isEqualTo(200); // the bucket's one token
    }
    List<CompletableFuture<Integer>> waiting = blockingCalls(calls, WAITERS);
    time.awaitScheduled(WAITERS); // each booked (100 ms apart) and parked until its slot
    assertThat(held.get()).as("connections held by %d waiting calls", WAITERS).isZero();
    assertThat(server.getRequestCount()).isEqualTo(1);
    for (int i = 1; i <= WAITERS; i++) {
      time.advanceMillis(100); // the next slot: one call takes a connection, is answered and gives it back
      int answered = i;
      Awaits.until(i + " calls answered", Duration.ofSeconds(10),
          () -> waiting.stream().filter(CompletableFuture::isDone).count() == answered);
      Awaits.until("its connection given back", Duration.ofSeconds(10), () -> held.get() == 0);
      assertThat(time.scheduledTasks()).as("the others still parked").isEqualTo(WAITERS - i);
    }
    for (CompletableFuture<Integer> w : waiting) {
      assertThat(w.get()).isEqualTo(200);
    }
    assertThat(server.getRequestCount()).isEqualTo(1 + WAITERS);
    assertThat(registry.find("bacen.throttle.rebooked").counter()).as("none left late").satisfiesAnyOf(
        c -> assertThat(c).isNull(), c -> assertThat(c.count()).isZero());
  }

  @Test
  void aPlainCallThroughTheNetworkInterceptorHoldsItsConnectionWhileItWaitsAndSaysSoOnce() throws Exception {
    OkHttpClient client = client("plain-network");
    try (StdErrCapture err = new StdErrCapture()) {
      try (Response first = client.newCall(get("/first")).execute()) {
        assertThat(first.code()).isEqualTo(200);
      }
      List<CompletableFuture<Integer>> waiting = blockingCalls(client, 2);
      time.awaitScheduled(2);
      assertThat(held.get()).as("each waiting call holds the connection it waits in").isEqualTo(2);
      for (int i = 1; i <= 2; i++) {
        time.advanceMillis(100);
        int answered = i;
        Awaits.until(i + " calls answered", Duration.ofSeconds(10),
            () -> waiting.stream().filter(CompletableFuture::isDone).count() == answered);
      }
      for (CompletableFuture<Integer> w : waiting) {
        assertThat(w.get()).isEqualTo(200);
      }
      assertThat(err.count("ThrottlingInterceptor is a network interceptor and this call was not made by "
          + "ThrottledCallFactory")).as("logged once for three calls").isEqualTo(1);
      assertThat(err.text()).contains("ThrottledCallFactory.of(client).newCall(request)")
          .doesNotContain("/pix/").doesNotContain("/first");
    }
  }

  @Test
  void anInterruptedBlockingCallOfTheFactoryIsNeverSentAndHeldNothing() throws Exception {
    OkHttpClient client = client("factory-interrupt");
    ThrottledCallFactory calls = ThrottledCallFactory.of(client);
    try (Response first = calls.newCall(get("/first")).execute()) {
      assertThat(first.code()).isEqualTo(200);
    }
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try (Response r = calls.newCall(get("/waits")).execute()) {
        failure.complete(null);
      } catch (IOException e) {
        failure.complete(e);
      }
    });
    waiter.start();
    time.awaitScheduled(1);
    assertThat(held.get()).isZero();
    waiter.interrupt();
    assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class)
        .hasMessage("interrupted while waiting for its slot; not sent");
    time.advanceMillis(1_000);
    assertThat(server.getRequestCount()).isEqualTo(1);
    assertThat(held.get()).isZero();
    assertThat(time.scheduledTasks()).as("its timer task taken back").isZero();
  }

  @Test
  void aCancelledBlockingCallOfTheFactoryLetsGoAtOnce() throws Exception {
    OkHttpClient client = client("factory-cancel");
    ThrottledCallFactory calls = ThrottledCallFactory.of(client);
    try (Response first = calls.newCall(get("/first")).execute()) {
      assertThat(first.code()).isEqualTo(200);
    }
    Call call = calls.newCall(get("/waits"));
    CompletableFuture<Integer> result = blockingCalls(c -> call, 1).get(0);
    time.awaitScheduled(1);
    call.cancel();
    assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).cause().cause()
        .isInstanceOf(InterruptedIOException.class).hasMessage("call canceled while waiting for its slot; not sent");
    assertThat(server.getRequestCount()).isEqualTo(1);
  }

  @Test
  void blockingCallsWhoseSlotsHaveComeHoldAtMostTheDispatchersCallsPerHostInConnectionsAndLeaveInOrder()
      throws Exception {
    Semaphore answers = new Semaphore(0);
    List<String> arrived = new CopyOnWriteArrayList<>();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        arrived.add(request.getUrl().encodedPath());
        return answers.tryAcquire(10, TimeUnit.SECONDS) ? new MockResponse.Builder().code(200).body("ok").build()
            : new MockResponse.Builder().code(500).build();
      }
    });
    OkHttpClient client = client("gate", 6); // six slots now: every call's slot has come at once
    client.dispatcher().setMaxRequestsPerHost(2);
    ThrottledCallFactory calls = ThrottledCallFactory.of(client);
    List<Thread> threads = new ArrayList<>();
    List<CompletableFuture<Integer>> done = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Call call = calls.newCall(get("/pix/" + i));
      CompletableFuture<Integer> result = new CompletableFuture<>();
      Thread t = new Thread(() -> {
        try (Response r = call.execute()) {
          result.complete(r.code());
        } catch (IOException e) {
          result.completeExceptionally(e);
        }
      });
      t.start();
      if (i < 2) {
        int n = i + 1;
        Awaits.until(n + " at the server", Duration.ofSeconds(10), () -> arrived.size() == n);
      } else {
        Awaits.until("call " + i + " parked at the gate", Duration.ofSeconds(10),
            () -> LockSupport.getBlocker(t) instanceof WireGate);
      }
      threads.add(t);
      done.add(result);
    }
    assertThat(held.get()).as("two calls in flight, four waiting their turn with no connection").isEqualTo(2);
    for (int i = 0; i < 6; i++) {
      answers.release(); // one answer, one place freed, one waiter in: at the server before the next answer goes
      int answered = i + 1;
      int atServer = Math.min(6, i + 3);
      Awaits.until(answered + " answered, " + atServer + " at the server", Duration.ofSeconds(10),
          () -> done.stream().filter(CompletableFuture::isDone).count() == answered && arrived.size() == atServer);
    }
    for (CompletableFuture<Integer> d : done) {
      assertThat(d.get()).isEqualTo(200);
    }
    assertThat(mostHeld.get()).as("connections at once: the dispatcher's 2 per host").isEqualTo(2);
    assertThat(arrived).as("in the order they came to the gate")
        .containsExactly("/pix/0", "/pix/1", "/pix/2", "/pix/3", "/pix/4", "/pix/5");
    Awaits.until("every place given back as its answer is closed", Duration.ofSeconds(10),
        () -> calls.gate(server.url("/").host()).taken() == 0);
  }

  @Test
  void aBlockingCallCancelledWhileItWaitsItsTurnAtTheGateIsNeverSent() throws Exception {
    Semaphore answers = new Semaphore(0);
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        return answers.tryAcquire(10, TimeUnit.SECONDS) ? new MockResponse.Builder().code(200).body("ok").build()
            : new MockResponse.Builder().code(500).build();
      }
    });
    OkHttpClient client = client("gate-cancel", 2);
    client.dispatcher().setMaxRequestsPerHost(1);
    ThrottledCallFactory calls = ThrottledCallFactory.of(client);
    CompletableFuture<Integer> first = blockingCalls(calls, 1).get(0);
    Awaits.until("the first in flight", Duration.ofSeconds(10), () -> server.getRequestCount() == 1);
    Call second = calls.newCall(get("/second"));
    CompletableFuture<Integer> result = blockingCalls(c -> second, 1).get(0);
    Awaits.until("the second at the gate", Duration.ofSeconds(10), () -> held.get() == 1
        && Thread.getAllStackTraces().keySet().stream().anyMatch(t -> LockSupport.getBlocker(t) instanceof WireGate));
    second.cancel();
    assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS)).cause().cause()
        .isInstanceOf(InterruptedIOException.class)
        .hasMessage("call canceled while waiting for its turn at the host; not sent");
    answers.release();
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(server.getRequestCount()).as("the cancelled call never sent").isEqualTo(1);
    Awaits.until("the first's place given back as its answer is closed", Duration.ofSeconds(10),
        () -> calls.gate(server.url("/").host()).taken() == 0);
  }

  @Test
  void aResponseNeverClosedGivesItsPlaceBackOnceCollectedAndSaysSoOnce() throws Exception {
    OkHttpClient client = client("gate-leak", 3);
    client.dispatcher().setMaxRequestsPerHost(1);
    ThrottledCallFactory calls = ThrottledCallFactory.of(client);
    WireGate gate = calls.gate(server.url("/").host());
    try (StdErrCapture err = new StdErrCapture()) {
      assertThat(leakedResponse(calls)).isEqualTo(200);
      assertThat(gate.taken()).as("the unclosed answer holds its place").isEqualTo(1);
      Awaits.until("its place given back once it is collected", Duration.ofSeconds(10), () -> {
        System.gc();
        return gate.taken() == 0;
      });
      try (Response next = calls.newCall(get("/next")).execute()) {
        assertThat(next.code()).as("the next call not held up by the leak").isEqualTo(200);
      }
      Awaits.until("said", Duration.ofSeconds(10), () -> err.count("was never closed") == 1);
      assertThat(err.text()).contains("Close every Response").doesNotContain("/leaked");
    }
    Awaits.until("the next call's place given back", Duration.ofSeconds(10), () -> gate.taken() == 0);
  }

  /** A call's answer read and dropped without closing it: a caller's leak. */
  private int leakedResponse(ThrottledCallFactory calls) throws IOException {
    Response leaked = calls.newCall(get("/leaked")).execute();
    return leaked.code();
  }
}
