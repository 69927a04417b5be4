package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP edge cases with MockWebServer: retries, Retry-After, malformed answers, timeouts, token refresh. The bucket
 * here is a large in-memory one so that only the HTTP behaviour is under test (the Redis bucket has its own tests).
 * The retry's waits and the token's lifetime run on a fake clock: a 1 s Retry-After is asserted as a 1 s wait, not
 * slept. OkHttp's own call timeout is real.
 */
class PixClientEdgeCasesTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  private static final String PIX_JSON = "{\"endToEndId\":\"" + E2E + "\",\"txid\":\"abcdefghijklmnopqrstuvwxyz1\","
      + "\"valor\":\"10.50\",\"horario\":\"2026-11-30T12:00:05.000Z\",\"extra\":{\"ignored\":true},"
      + "\"devolucoes\":[{\"id\":\"D1\",\"rtrId\":\"D12345678202611301200abcdefghijk\",\"valor\":\"1.00\","
      + "\"natureza\":\"ORIGINAL\",\"horario\":{\"solicitacao\":\"2026-11-30T12:05:00Z\"},\"status\":\"DEVOLVIDO\"}]}";

  private final MockWebServer server = new MockWebServer();
  private final Queue<MockResponse> apiResponses = new ConcurrentLinkedQueue<>();
  private final AtomicInteger tokenFetches = new AtomicInteger();
  private final AtomicInteger apiCalls = new AtomicInteger();
  private final List<String> bearers = new ArrayList<>();
  private volatile long tokenLifetimeSeconds = 3600;
  private volatile long tokenDelayMs;
  private volatile String tokenValue; // null: token-<n>
  private volatile CountDownLatch tokenGate = new CountDownLatch(0);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.autoAdvancing(1_800_000_000);

  @BeforeEach
  void start() throws Exception {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        if (request.getUrl().encodedPath().equals("/oauth/token")) {
          Thread.sleep(tokenDelayMs);
          tokenGate.await();
          int n = tokenFetches.incrementAndGet();
          String token = tokenValue != null ? tokenValue : "token-" + n;
          return json(200, "{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":"
              + tokenLifetimeSeconds + "}");
        }
        apiCalls.incrementAndGet();
        synchronized (bearers) {
          bearers.add(request.getHeaders().get("Authorization"));
        }
        MockResponse next = apiResponses.poll();
        return next != null ? next : json(200, PIX_JSON);
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

  private static MockResponse problem(int code, String name) {
    return new MockResponse.Builder().code(code).setHeader("Content-Type", "application/problem+json")
        .body("{\"type\":\"https://pix.bcb.gov.br/api/v2/error/" + name + "\",\"title\":\"t\",\"status\":" + code
            + ",\"correlationId\":\"corr-1\"}").build();
  }

  private PixClient client(PixClientConfigBuilder config) {
    return PixClient.builder(config.baseUrl(URI.create(server.url("/api/v2/").toString())).credentials("bank", "s3cr3t")
        .build()).tokenBucket(new LocalTokenBucket("local", List.of(Limit.of(1000, 1000)), System::nanoTime))
        .meterRegistry(registry).timeSource(time).jitter(bound -> bound).build();
  }

  private PixClient client() {
    return client(PixClientConfig.builder().retry(3, Duration.ofMillis(10), Duration.ofMillis(50),
        Duration.ofSeconds(10)));
  }

  @Test
  void parsesThePixAndIgnoresUnknownFields() {
    try (PixClient client = client()) {
      Pix pix = client.getPix(E2E);
      assertThat(pix.valor()).isEqualByComparingTo("10.50");
      assertThat(pix.devolucoes()).singleElement().satisfies(d -> {
        assertThat(d.status()).isEqualTo(DevolucaoStatus.DEVOLVIDO);
        assertThat(d.horario().liquidacao()).isNull();
      });
    }
  }

  @Test
  void a429WithRetryAfterIsRetriedAfterAtLeastThatLong() {
    apiResponses.add(new MockResponse.Builder(problem(429, "LimiteDeRequisicoesExcedido")).setHeader("Retry-After", "1")
        .build());
    try (PixClient client = client()) {
      assertThat(client.getPix(E2E).endToEndId()).isEqualTo(E2E);
    }
    assertThat(time.sleeps()).as("one wait: the Retry-After, over the backoff of 10 ms")
        .containsExactly(1_000_000_000L);
    assertThat(apiCalls.get()).isEqualTo(2);
    assertThat(registry.get("bacen.client.retries").tag("operation", "getPix").counter().count()).isEqualTo(1);
  }

  @Test
  void a429WithoutRetryAfterIsRetriedWithBackoffThenReported() {
    for (int i = 0; i < 3; i++) {
      apiResponses.add(problem(429, "LimiteDeRequisicoesExcedido"));
    }
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOfSatisfying(PixRateLimitedException.class, e -> {
        assertThat(e.retryAfter()).isEmpty();
        assertThat(e.correlationId()).isEqualTo("corr-1");
      });
    }
    assertThat(apiCalls.get()).as("3 attempts in all").isEqualTo(3);
    assertThat(time.sleeps()).as("two backoffs at their caps (the jitter set to its largest): 10 ms, then 20 ms")
        .containsExactly(10_000_000L, 20_000_000L);
    assertThat(registry.get("bacen.client.requests").tag("status", "429").tag("outcome", "rate_limited").timer()
        .count()).isEqualTo(1);
  }

  @Test
  void theDefaultJitterWaitsAtMostTheBackoffCaps() {
    for (int i = 0; i < 3; i++) {
      apiResponses.add(problem(429, "LimiteDeRequisicoesExcedido"));
    }
    try (PixClient client = PixClient.builder(PixClientConfig.builder()
        .baseUrl(URI.create(server.url("/api/v2/").toString())).credentials("bank", "s3cr3t")
        .retry(3, Duration.ofMillis(10), Duration.ofMillis(50), Duration.ofSeconds(10)).build())
        .tokenBucket(new LocalTokenBucket("local", List.of(Limit.of(1000, 1000)), System::nanoTime))
        .timeSource(time).build()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixRateLimitedException.class);
    }
    // uniform in [0, 10 ms] then [0, 20 ms]; a wait of 0 sleeps not at all
    assertThat(time.sleeps()).hasSizeLessThanOrEqualTo(2).allMatch(n -> n >= 0 && n <= 20_000_000L)
        .satisfies(s -> assertThat(s.stream().mapToLong(Long::longValue).sum()).isLessThanOrEqualTo(30_000_000L));
    assertThat(apiCalls.get()).isEqualTo(3);
  }

  @Test
  void aRetryAfterLongerThanTheBudgetIsNotWaitedFor() {
    apiResponses.add(new MockResponse.Builder(problem(429, "LimiteDeRequisicoesExcedido"))
        .setHeader("Retry-After", "3600").build());
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOfSatisfying(PixRateLimitedException.class,
          e -> assertThat(e.retryAfter()).hasValue(Duration.ofHours(1)));
    }
    assertThat(time.sleeps()).as("an hour is past the 10 s budget: not waited for at all").isEmpty();
    assertThat(apiCalls.get()).isEqualTo(1);
    assertThat(registry.get("bacen.client.retries").counter().count()).isZero();
  }

  @Test
  void a503ThenA200Succeeds() {
    apiResponses.add(problem(503, "ServicoIndisponivel"));
    try (PixClient client = client()) {
      assertThat(client.getPix(E2E).endToEndId()).isEqualTo(E2E);
    }
    assertThat(apiCalls.get()).isEqualTo(2);
  }

  @Test
  void a500IsNotRetried() {
    apiResponses.add(problem(500, "ErroInternoDoServidor"));
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOfSatisfying(PixUnavailableException.class,
          e -> assertThat(e.status()).isEqualTo(500));
    }
    assertThat(apiCalls.get()).isEqualTo(1);
  }

  @Test
  void a503WithRetryAfterWaitsAtLeastThatLongThenSucceeds() {
    apiResponses.add(new MockResponse.Builder(problem(503, "ServicoIndisponivel")).setHeader("Retry-After", "1")
        .build());
    try (PixClient client = client()) {
      assertThat(client.getPix(E2E).endToEndId()).isEqualTo(E2E);
    }
    assertThat(time.sleeps()).containsExactly(1_000_000_000L);
    assertThat(apiCalls.get()).isEqualTo(2);
  }

  @Test
  void a503EveryTimeIsReportedAfterTheBoundedAttempts() {
    for (int i = 0; i < 5; i++) {
      apiResponses.add(problem(503, "ServicoIndisponivel"));
    }
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOfSatisfying(PixUnavailableException.class, e -> {
        assertThat(e.status()).isEqualTo(503);
        assertThat(e.problemType()).isEqualTo("https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel");
      });
    }
    assertThat(apiCalls.get()).as("3 attempts, no more").isEqualTo(3);
  }

  @Test
  void a500WithRetryAfterIsStillNotRetried() {
    apiResponses.add(new MockResponse.Builder(problem(500, "ErroInternoDoServidor")).setHeader("Retry-After", "1")
        .build());
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixUnavailableException.class);
    }
    assertThat(apiCalls.get()).isEqualTo(1);
  }

  @Test
  void aConnectionResetIsRetriedAndEveryAttemptIsBounded() {
    for (int i = 0; i < 20; i++) {
      apiResponses.add(new MockResponse.Builder(json(200, PIX_JSON))
          .onResponseStart(new mockwebserver3.SocketEffect.CloseSocket()).build());
    }
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixTransportException.class);
    }
    // 3 attempts; OkHttp itself may retry a GET once on a dropped connection, through the throttle again
    assertThat(apiCalls.get()).isBetween(3, 6);
    apiResponses.clear();
    try (PixClient client = client()) {
      assertThat(client.getPix(E2E).endToEndId()).as("a healthy server afterwards").isEqualTo(E2E);
    }
  }

  @Test
  void malformedJsonIsATypedError() {
    apiResponses.add(json(200, "{\"endToEndId\": \"E1"));
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixUnexpectedResponseException.class)
          .hasMessageContaining("unreadable body");
    }
  }

  @Test
  void anUnknownEnumValueIsATypedError() {
    apiResponses.add(json(200, PIX_JSON.replace("DEVOLVIDO", "PERDIDO")));
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixUnexpectedResponseException.class);
    }
  }

  @Test
  void aWrongContentTypeIsATypedError() {
    apiResponses.add(new MockResponse.Builder().code(200).setHeader("Content-Type", "text/html")
        .body("<html>maintenance</html>").build());
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixUnexpectedResponseException.class)
          .hasMessageContaining("expected application/json, got 'text/html'");
    }
  }

  @Test
  void aSlowServerMeetsTheCallTimeoutAndIsReportedAfterRetries() {
    for (int i = 0; i < 2; i++) {
      apiResponses.add(new MockResponse.Builder(json(200, PIX_JSON)).headersDelay(2, TimeUnit.SECONDS).build());
    }
    try (PixClient client = client(PixClientConfig.builder().callTimeout(Duration.ofMillis(300))
        .maxWait(Duration.ofMillis(200))
        .retry(2, Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofSeconds(10)))) {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixTransportException.class)
          .hasMessageContaining("timeout");
      // real time: OkHttp's own watchdog ends each attempt after 300 ms; a server that held the call for its 2 s
      // would show here
      assertThat((System.nanoTime() - t0) / 1e6).isBetween(550.0, 1500.0);
    }
    assertThat(apiCalls.get()).isEqualTo(2);
  }

  @Test
  void concurrentCallersShareOneTokenFetchAndRefreshBeforeExpiry() throws Exception {
    tokenLifetimeSeconds = 6; // refreshed after min(90%, lifetime - 5 s) = 1 s
    tokenDelayMs = 100;
    try (PixClient client = client()) {
      ExecutorService pool = Executors.newFixedThreadPool(16);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Pix>> calls = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        calls.add(pool.submit(() -> {
          go.await();
          return client.getPix(E2E);
        }));
      }
      go.countDown();
      for (Future<Pix> f : calls) {
        f.get(10, TimeUnit.SECONDS);
      }
      assertThat(tokenFetches.get()).as("one fetch for 16 concurrent callers").isEqualTo(1);
      time.advanceMillis(999);
      client.getPix(E2E);
      assertThat(tokenFetches.get()).as("still fresh after 999 ms").isEqualTo(1);
      time.advanceMillis(1);
      client.getPix(E2E);
      pool.shutdownNow();
    }
    assertThat(tokenFetches.get()).as("refreshed before expiry").isEqualTo(2);
    assertThat(bearers.get(bearers.size() - 1)).isEqualTo("Bearer token-2");
  }

  @Test
  void anExpiresInOfThousandsOfYearsIsClampedToADay() {
    tokenLifetimeSeconds = 99_999_999_999L; // once an ArithmeticException: long overflow
    try (PixClient client = client()) {
      client.getPix(E2E);
      time.advance(Duration.ofHours(21)); // refreshed after 90% of the clamped day: 21.6 h
      client.getPix(E2E);
      assertThat(tokenFetches.get()).isEqualTo(1);
      time.advance(Duration.ofMinutes(37));
      client.getPix(E2E);
    }
    assertThat(tokenFetches.get()).as("refreshed after 21.6 h").isEqualTo(2);
  }

  @Test
  void anExpiresInOfSixtyYearsIsNotRefreshedOnEveryCall() {
    tokenLifetimeSeconds = 2_000_000_000L; // once an overflow that made every call fetch a token
    try (PixClient client = client()) {
      for (int i = 0; i < 3; i++) {
        client.getPix(E2E);
      }
    }
    assertThat(tokenFetches.get()).isEqualTo(1);
  }

  @Test
  void aTokenWithCharactersAnHttpHeaderCannotCarryIsAnUnexpectedResponse() {
    for (String bad : new String[] {"abc\\r\\nX-Injected: 1", "t\u00f6k\u00e9n"}) {
      tokenValue = bad;
      try (PixClient client = client()) {
        assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOfSatisfying(PixUnexpectedResponseException.class,
            e -> assertThat(e.getMessage()).contains("token endpoint answered an unusable token")
                .doesNotContain("X-Injected"));
      }
    }
    assertThat(apiCalls.get()).as("no API call with such a token").isZero();
  }

  @Test
  void aWaiterForAnotherCallersTokenFetchLetsGoWhenInterrupted() throws Exception {
    tokenGate = new CountDownLatch(1); // the token endpoint holds every fetch until released
    try (PixClient client = client()) {
      AtomicReference<Throwable> first = new AtomicReference<>();
      Thread fetcher = new Thread(() -> first.set(catching(() -> client.getPix(E2E))));
      fetcher.start();
      awaitTokenRequest();
      AtomicReference<Throwable> second = new AtomicReference<>();
      AtomicBoolean flag = new AtomicBoolean();
      Thread waiter = new Thread(() -> {
        second.set(catching(() -> client.getPix(E2E)));
        flag.set(Thread.currentThread().isInterrupted());
      });
      waiter.start();
      waiter.interrupt();
      waiter.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(waiter.isAlive()).as("not stuck WAITING for the fetch in flight").isFalse();
      assertThat(second.get()).isInstanceOf(PixTransportException.class).hasMessageContaining("interrupted");
      assertThat(flag.get()).as("interrupt flag kept").isTrue();
      tokenGate.countDown();
      fetcher.join(TimeUnit.SECONDS.toMillis(10));
      assertThat(first.get()).as("the fetch itself went on and served its caller").isNull();
    }
    assertThat(tokenFetches.get()).isEqualTo(1);
  }

  private void awaitTokenRequest() throws InterruptedException {
    RecordedRequest r = server.takeRequest(10, TimeUnit.SECONDS);
    assertThat(r).isNotNull();
    assertThat(r.getUrl().encodedPath()).isEqualTo("/oauth/token");
  }

  private static Throwable catching(Runnable r) {
    try {
      r.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  @Test
  void aRedirectIsNotFollowedNorRetried() {
    for (int i = 0; i < 5; i++) {
      apiResponses.add(new MockResponse.Builder().code(302).setHeader("Location", server.url("/api/v2/pix/" + E2E))
          .build());
    }
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOfSatisfying(PixUnexpectedResponseException.class,
          e -> assertThat(e.status()).isEqualTo(302));
    }
    assertThat(apiCalls.get()).as("one request: no redirect followed, no retry").isEqualTo(1);
  }

  @Test
  void aClosedClientRefusesCalls() {
    PixClient client = client();
    client.close();
    assertThatThrownBy(() -> client.getPix(E2E)).isExactlyInstanceOf(IllegalStateException.class)
        .hasMessage("this PixClient is closed");
    assertThatThrownBy(client::warmUp).isExactlyInstanceOf(IllegalStateException.class);
    assertThat(apiCalls.get() + tokenFetches.get()).isZero();
  }

  @Test
  void closingLeavesAGivenOkHttpClientWorking() throws Exception {
    OkHttpClient shared = new OkHttpClient();
    PixClient client = PixClient.builder(PixClientConfig.builder()
        .baseUrl(URI.create(server.url("/api/v2/").toString())).credentials("bank", "s3cr3t").build())
        .tokenBucket(new LocalTokenBucket("local", List.of(Limit.of(1000, 1000)), System::nanoTime))
        .okHttpClient(shared).build();
    client.getPixAsync(E2E).get(10, TimeUnit.SECONDS);
    client.close();
    assertThat(shared.dispatcher().executorService().isShutdown()).as("the application's dispatcher").isFalse();
    CompletableFuture<Integer> status = new CompletableFuture<>();
    shared.newCall(new Request.Builder().url(server.url("/oauth/token")).post(RequestBody.create(new byte[0]))
        .build()).enqueue(new Callback() {
          @Override
          public void onFailure(Call call, IOException e) {
            status.completeExceptionally(e);
          }

          @Override
          public void onResponse(Call call, Response response) {
            status.complete(response.code());
            response.close();
          }
        });
    assertThat(status.get(10, TimeUnit.SECONDS)).as("its async calls still run").isPositive();
  }

  @Test
  void policyNamesThatAreDotSegmentsAreRefusedBeforeAnyIo() {
    try (PixClient client = client()) {
      for (String name : new String[] {"..", ".", ".hidden", "a/b", "x".repeat(65)}) {
        assertThatThrownBy(() -> client.getPolicy(name)).as(name).isExactlyInstanceOf(IllegalArgumentException.class);
      }
    }
    assertThat(apiCalls.get() + tokenFetches.get()).isZero();
  }

  @Test
  void a401FetchesAFreshTokenOnceAndTriesAgain() {
    apiResponses.add(problem(401, "AcessoNegado"));
    try (PixClient client = client()) {
      assertThat(client.getPix(E2E).endToEndId()).isEqualTo(E2E);
    }
    assertThat(tokenFetches.get()).isEqualTo(2);
    assertThat(bearers).containsExactly("Bearer token-1", "Bearer token-2");
  }

  @Test
  void anOversizedBodyIsNotRead() {
    apiResponses.add(json(200, "{\"x\":\"" + "a".repeat(2 * 1024 * 1024) + "\"}"));
    try (PixClient client = client()) {
      assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixUnexpectedResponseException.class)
          .hasMessageContaining("body larger than 1048576 bytes");
    }
  }

  @Test
  void noMessageEverCarriesTheTokenOrTheSecret() {
    apiResponses.add(problem(403, "AcessoNegado"));
    apiResponses.add(problem(400, "RequisicaoInvalida"));
    try (PixClient client = client()) {
      for (int i = 0; i < 2; i++) {
        assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixException.class)
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("token-1").doesNotContain("s3cr3t")
                .doesNotContain(E2E));
      }
      assertThat(client.toString()).doesNotContain("s3cr3t");
    }
  }
}
