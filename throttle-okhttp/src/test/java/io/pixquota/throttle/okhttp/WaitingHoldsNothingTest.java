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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
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
    RedisTokenBucket bucket = RedisTesting.onFakeTime(redisson, redis.keyPrefix(), bucketName, 1, 10, time);
    return new OkHttpClient.Builder().eventListener(new EventListener() {
      @Override
      public void connectionAcquired(Call call, Connection connection) {
        held.incrementAndGet();
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
}
