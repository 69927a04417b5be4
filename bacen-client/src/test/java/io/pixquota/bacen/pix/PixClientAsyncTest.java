package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.support.TimeSource;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code getPixAsync} / {@code getCobAsync} against a real HTTP server: the same answers, exceptions, retries and
 * meters as the blocking calls, retry waits on the test's clock (which moves by each wait, at once, and logs it).
 */
class PixClientAsyncTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  private static final String PIX_JSON = "{\"endToEndId\":\"" + E2E + "\",\"txid\":\"abcdefghijklmnopqrstuvwxyz1\","
      + "\"valor\":\"10.50\",\"horario\":\"2026-11-30T12:00:05.000Z\"}";
  private static final String COB_JSON = "{\"txid\":\"abcdefghijklmnopqrstuvwxyz1\",\"status\":\"ATIVA\","
      + "\"valor\":{\"original\":\"5.00\"},\"chave\":\"k\",\"calendario\":{\"criacao\":\"2026-11-30T12:00:00Z\","
      + "\"expiracao\":3600}}";

  private final MockWebServer server = new MockWebServer();
  private final Queue<MockResponse> apiResponses = new ConcurrentLinkedQueue<>();
  private final AtomicInteger tokenFetches = new AtomicInteger();
  private final AtomicInteger apiCalls = new AtomicInteger();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.autoAdvancing(1_800_000_000);
  private volatile boolean slowToken;

  @BeforeEach
  void start() throws Exception {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        if (request.getUrl().encodedPath().equals("/oauth/token")) {
          int n = tokenFetches.incrementAndGet();
          if (slowToken) {
            try {
              Thread.sleep(1_000); // a token endpoint that takes a second (real time: it is OkHttp's own fetch)
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return json(200, "{\"access_token\":\"token-" + n + "\",\"expires_in\":3600}");
        }
        apiCalls.incrementAndGet();
        MockResponse next = apiResponses.poll();
        if (next != null) {
          return next;
        }
        return json(200, request.getUrl().encodedPath().contains("/cob/") ? COB_JSON : PIX_JSON);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json").body(body).build();
  }

  private static MockResponse problem(int code, String name, String retryAfter) {
    MockResponse.Builder b = new MockResponse.Builder().code(code)
        .setHeader("Content-Type", "application/problem+json")
        .body("{\"type\":\"https://pix.bcb.gov.br/api/v2/error/" + name + "\",\"title\":\"t\",\"status\":" + code
            + "}");
    if (retryAfter != null) {
      b.setHeader("Retry-After", retryAfter);
    }
    return b.build();
  }

  private PixClient client(LocalTokenBucket bucket, Duration maxWait) {
    return PixClient.builder(PixClientConfig.builder().baseUrl(URI.create(server.url("/api/v2/").toString()))
        .credentials("bank", "s3cr3t").maxWait(maxWait)
        .retry(3, Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(10)).build())
        .tokenBucket(bucket).meterRegistry(registry).timeSource(time).jitter(bound -> bound).build();
  }

  private PixClient client() {
    return client(new LocalTokenBucket("local", List.of(Limit.of(1000, 1000)), System::nanoTime),
        Duration.ofSeconds(10));
  }

  private static Throwable failureOf(CompletableFuture<?> future) {
    assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
    return future.handle((v, t) -> t).join();
  }

  /**
   * The adversarial test's eighth finding: 50 calls cancelled 300 ms in, during a 1 s fetch of the first token, were
   * all sent and spent 50 tokens. Now none is sent and no token of the bucket is spent.
   */
  @Test
  void callsCancelledWhileTheFirstTokenIsFetchedAreNeverSent() throws Exception {
    slowToken = true;
    LocalTokenBucket bucket = new LocalTokenBucket("cancel", List.of(Limit.of(100, 1)), System::nanoTime);
    try (PixClient client = client(bucket, Duration.ofSeconds(10))) {
      List<CompletableFuture<Pix>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(client.getPixAsync(E2E));
      }
      Thread.sleep(300); // real time: the token fetch is OkHttp's, on the real clock
      calls.forEach(c -> assertThat(c.cancel(true)).isTrue());
      Thread.sleep(1_500); // the token has come by now
      assertThat(tokenFetches.get()).as("the token was fetched").isEqualTo(1);
      assertThat(apiCalls.get()).as("calls sent after they were cancelled (before: 22 here)").isZero();
      assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("none of the bucket's 100 tokens spent")
          .isCloseTo(99, within(0.01));
    }
  }

  @Test
  void servesThePixAndTheCob() throws Exception {
    try (PixClient client = client()) {
      assertThat(client.getPixAsync(E2E).get(10, TimeUnit.SECONDS).valor()).isEqualByComparingTo("10.50");
      assertThat(client.getCobAsync("abcdefghijklmnopqrstuvwxyz12").get(10, TimeUnit.SECONDS).status())
          .isEqualTo(CobStatus.ATIVA);
    }
    assertThat(registry.get("bacen.client.requests").tag("operation", "getPix").tag("status", "200")
        .tag("outcome", "success").timer().count()).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.wait").timer().count()).as("through the bucket, metered").isEqualTo(2);
  }

  @Test
  void eachCallGoesThroughTheBucketInItsPriorityClass() throws Exception {
    try (PixClient client = client()) {
      client.getPix(E2E);
      client.getPix(E2E, Priority.BATCH);
      client.getCob("abcdefghijklmnopqrstuvwxyz12", Priority.BATCH);
      client.getPixAsync(E2E, Priority.BATCH).get(10, TimeUnit.SECONDS);
      client.getCobAsync("abcdefghijklmnopqrstuvwxyz12", Priority.INTERACTIVE).get(10, TimeUnit.SECONDS);
      assertThatThrownBy(() -> client.getPix(E2E, null)).isInstanceOf(NullPointerException.class)
          .hasMessage("priority cannot be null");
    }
    assertThat(registry.get("bacen.throttle.wait").tag("priority", "interactive").timer().count()).isEqualTo(2);
    assertThat(registry.get("bacen.throttle.wait").tag("priority", "batch").timer().count()).isEqualTo(3);
    assertThat(apiCalls.get()).as("the null priority was refused before any I/O").isEqualTo(5);
  }

  @Test
  void a429WithRetryAfterIsRetriedAfterExactlyThatLongOnTheTimer() throws Exception {
    apiResponses.add(problem(429, "TooManyRequests", "1"));
    try (PixClient client = client()) {
      assertThat(client.getPixAsync(E2E).get(10, TimeUnit.SECONDS).endToEndId()).isEqualTo(E2E);
    }
    assertThat(apiCalls.get()).isEqualTo(2);
    assertThat(time.sleeps()).as("one wait of the Retry-After, on the timer, over a backoff of at most 10 ms")
        .containsExactly(TimeUnit.SECONDS.toNanos(1));
    assertThat(registry.get("bacen.client.retries").tag("operation", "getPix").counter().count()).isEqualTo(1);
    assertThat(registry.get("bacen.client.answers").tag("operation", "getPix").tag("status", "429").counter().count())
        .as("the 429 a retry recovered is counted per attempt").isEqualTo(1);
    assertThat(registry.get("bacen.client.answers").tag("status", "200").counter().count()).isEqualTo(1);
    assertThat(registry.get("bacen.client.requests").tag("outcome", "success").timer().count())
        .as("while the call succeeded").isEqualTo(1);
    try (PixClient client = client()) {
      apiResponses.add(problem(429, "TooManyRequests", "1"));
      assertThat(client.getCob("abcdefghijklmnopqrstuvwxyz12").status()).as("the blocking path counts the same")
          .isEqualTo(CobStatus.ATIVA);
    }
    assertThat(registry.get("bacen.client.answers").tag("operation", "getCob").tag("status", "429").counter()
        .count()).isEqualTo(1);
  }

  @Test
  void a503EveryTimeFailsWithTheBlockingCallsExceptionAfterTheBoundedAttempts() {
    for (int i = 0; i < 5; i++) {
      apiResponses.add(problem(503, "ServicoIndisponivel", null));
    }
    try (PixClient client = client()) {
      assertThat(failureOf(client.getPixAsync(E2E))).isInstanceOfSatisfying(PixUnavailableException.class,
          e -> assertThat(e.status()).isEqualTo(503));
    }
    assertThat(apiCalls.get()).isEqualTo(3);
    assertThat(time.sleeps()).as("backoffs of 10 and 20 ms (jitter at its cap)")
        .containsExactly(TimeUnit.MILLISECONDS.toNanos(10), TimeUnit.MILLISECONDS.toNanos(20));
    assertThat(registry.get("bacen.client.requests").tag("status", "503").tag("outcome", "unavailable").timer()
        .count()).isEqualTo(1);
  }

  @Test
  void a401GetsOneFreshTokenThenTheCallIsServed() throws Exception {
    apiResponses.add(problem(401, "AcessoNegado", null));
    try (PixClient client = client()) {
      assertThat(client.getPixAsync(E2E).get(10, TimeUnit.SECONDS).endToEndId()).isEqualTo(E2E);
    }
    assertThat(tokenFetches.get()).isEqualTo(2);
    assertThat(apiCalls.get()).isEqualTo(2);
  }

  @Test
  void aMalformedIdIsRefusedBeforeAnyIo() {
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPixAsync("E123")).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> client.getCobAsync("short")).isInstanceOf(IllegalArgumentException.class);
    }
    assertThat(tokenFetches.get() + apiCalls.get()).isZero();
  }

  @Test
  void aSlotBeyondTheMaxWaitIsAThrottledFailureAndNothingIsSent() {
    // A late limit of a day: on a loaded machine the first call may leave more than the default 50 ms after its
    // slot, and rebooking it then would take the second token, 100 s away (what this test is not about)
    Throttle throttle = Throttle.builder(new LocalTokenBucket("slow", List.of(Limit.of(1, 0.01)), System::nanoTime))
        .maxWait(Duration.ofMillis(200)).lateLimit(Duration.ofDays(1)).build();
    try (PixClient client = PixClient.builder(PixClientConfig.builder()
        .baseUrl(URI.create(server.url("/api/v2/").toString())).credentials("bank", "s3cr3t").build())
        .throttlingInterceptor(ThrottlingInterceptor.of(throttle)).meterRegistry(registry).build()) {
      assertThat(client.getPixAsync(E2E).join().endToEndId()).isEqualTo(E2E);
      assertThat(failureOf(client.getPixAsync(E2E))).isInstanceOfSatisfying(PixThrottledException.class,
          e -> assertThat(e.reason()).isInstanceOf(ThrottleRefusedException.class));
    }
    assertThat(apiCalls.get()).isEqualTo(1);
  }

  @Test
  void aCallWaitingWhenTheClientClosesFailsInsteadOfHanging() throws Exception {
    LocalTokenBucket bucket = new LocalTokenBucket("closing", List.of(Limit.of(1, 2)), System::nanoTime);
    PixClient client = client(bucket, Duration.ofMillis(200));
    client.getPixAsync(E2E).get(10, TimeUnit.SECONDS);
    CompletableFuture<Pix> waiting = client.getPixAsync(E2E); // its slot about 0.5 s away: past the max wait
    client.close();
    assertThat(failureOf(waiting)).isInstanceOf(PixException.class);
    assertThatThrownBy(() -> client.getPixAsync(E2E)).isInstanceOf(IllegalStateException.class)
        .hasMessage("this PixClient is closed");
  }

  @Test
  void cancellingTheFutureWhileItsCallWaitsSendsNothingAndGivesTheSlotBack() throws Exception {
    LocalTokenBucket bucket = new LocalTokenBucket("cancel", List.of(Limit.of(1, 1)), System::nanoTime);
    try (PixClient client = client(bucket, Duration.ofSeconds(10))) {
      client.getPixAsync(E2E).get(10, TimeUnit.SECONDS);
      CompletableFuture<Pix> waiting = client.getPixAsync(E2E); // its slot is about 1 s away
      Awaits.until("the call booked, and waiting on the process's timer", Duration.ofSeconds(5),
          () -> TimeSource.systemTimerTasks() > 0);
      int tasks = TimeSource.systemTimerTasks(); // a task of an earlier test may still wait for its time too
      assertThat(waiting.cancel(false)).isTrue();
      assertThat(TimeSource.systemTimerTasks()).as("its timer task taken back: it can never be sent")
          .isLessThan(tasks);
      double left = bucket.charge(1e-9) + 1e-9;
      assertThat(left).as("the booked token came back: 0 and a few ms of refill, not -1").isCloseTo(0, within(0.09));
    }
    assertThat(apiCalls.get()).isEqualTo(1);
  }
}
