package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import okhttp3.Call;
import okhttp3.Callback;
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
 * OkHttp retries a call whose pooled connection the provider had closed (the request written, the connection gone
 * before an answer). The retry needs a slot of its own: booked at the network level it would wait for it holding the
 * retry's connection, idle, for as long as the line is, and a gateway closes idle connections (the retry then fails
 * on it, and OkHttp does not retry a new connection). Through {@link ThrottledCallFactory} the retry waits for its
 * slot holding no connection, as the first attempt did. A real Redis bucket of one token and 10 per second on a clock
 * the test moves, a real HTTP server, OkHttp's own event listener counting the connections held.
 */
@ExtendWith(RedisExtension.class)
class TransportRetryTest {
  private final MockWebServer server = new MockWebServer();
  private final FakeTime time = FakeTime.manual(1_000);
  private final AtomicInteger held = new AtomicInteger();
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

  private ThrottledCallFactory calls(String bucketName) {
    RedisTokenBucket bucket = RedisTesting.onFakeTime(redisson, redis.keyPrefix(), bucketName, 1, 10, time);
    return ThrottledCallFactory.of(new OkHttpClient.Builder().eventListener(new EventListener() {
      @Override
      public void connectionAcquired(Call call, Connection connection) {
        held.incrementAndGet();
      }

      @Override
      public void connectionReleased(Call call, Connection connection) {
        held.decrementAndGet();
      }
    }).authenticator((route, response) -> response.request().header("Authorization") != null ? null
        : response.request().newBuilder().header("Authorization", "Bearer renewed").build())
        .addNetworkInterceptor(ThrottlingInterceptor.of(ThrottleTesting.builder(bucket, time).build())).build());
  }

  private Request get(String path) {
    return new Request.Builder().url(server.url(path)).build();
  }

  /** A blocking call of {@code path} on a thread of its own: its answer's body. */
  private CompletableFuture<String> executedApart(ThrottledCallFactory calls, String path) {
    return CompletableFuture.supplyAsync(() -> {
      try (Response r = calls.newCall(get(path)).execute()) {
        return r.body().string();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
  }

  /** The first call takes the token and leaves its connection in the pool; the token comes back 100 ms later. */
  private void aPooledConnection(ThrottledCallFactory calls) throws IOException {
    server.enqueue(new MockResponse.Builder().code(200).body("first").build());
    try (Response r = calls.newCall(get("/first")).execute()) {
      assertThat(r.body().string()).isEqualTo("first");
    }
    time.advanceMillis(100);
    server.enqueue(new MockResponse.Builder().code(200).body("lost")
        .onResponseStart(new SocketEffect.CloseSocket()).build()); // read, then the connection closed: no answer
    server.enqueue(new MockResponse.Builder().code(200).body("retried").build());
  }

  /** The retry waits for the next token on the throttle's timer, holding no connection; then it is served. */
  private void theRetryWaitsHoldingNothing() throws Exception {
    Awaits.until("the call sent once, its connection closed under it", Duration.ofSeconds(10),
        () -> server.getRequestCount() == 2);
    time.awaitScheduled(1); // the retry's slot, 100 ms ahead, waited for on the timer
    assertThat(held.get()).as("connections held while the retry waits for its slot").isZero();
    assertThat(server.getRequestCount()).isEqualTo(2);
    time.advanceMillis(100);
  }

  @Test
  void aBlockingCallRetriedByOkHttpWaitsForItsNewSlotHoldingNoConnection() throws Exception {
    ThrottledCallFactory calls = calls("retry-blocking");
    aPooledConnection(calls);
    CompletableFuture<String> body = executedApart(calls, "/retried");
    theRetryWaitsHoldingNothing();
    assertThat(body.get(10, TimeUnit.SECONDS)).isEqualTo("retried");
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  @Test
  void anAsyncCallRetriedByOkHttpWaitsForItsNewSlotHoldingNoConnection() throws Exception {
    ThrottledCallFactory calls = calls("retry-async");
    aPooledConnection(calls);
    CompletableFuture<String> body = new CompletableFuture<>();
    calls.newCall(get("/retried")).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        body.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call call, Response response) throws IOException {
        try (response) {
          body.complete(response.body().string());
        }
      }
    });
    theRetryWaitsHoldingNothing();
    assertThat(body.get(10, TimeUnit.SECONDS)).isEqualTo("retried");
    assertThat(server.getRequestCount()).isEqualTo(3);
  }

  /** A follow-up of an answer (new credentials after a 401) is no retry of a failed send: booked as before. */
  @Test
  void aFollowUpOfAnAnswerIsBookedAtTheNetworkLevelAsBefore() throws Exception {
    ThrottledCallFactory calls = calls("follow-up");
    server.enqueue(new MockResponse.Builder().code(401).setHeader("WWW-Authenticate", "Bearer").build());
    server.enqueue(new MockResponse.Builder().code(200).body("renewed").build());
    CompletableFuture<String> body = executedApart(calls, "/auth");
    Awaits.until("the 401", Duration.ofSeconds(10), () -> server.getRequestCount() == 1);
    time.awaitScheduled(1);
    time.advanceMillis(100); // the follow-up's token
    assertThat(body.get(10, TimeUnit.SECONDS)).isEqualTo("renewed");
    assertThat(server.getRequestCount()).isEqualTo(2);
    server.takeRequest();
    assertThat(server.takeRequest().getHeaders().get("Authorization")).isEqualTo("Bearer renewed");
  }
}
