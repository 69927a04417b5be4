package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The quota over real HTTP: 429s, Retry-After, simultaneous requests, cost by status. */
class MockQuotaHttpTest {
  private static final String E2E = MockApiTest.E2E;

  @Test
  void aRefusalIsA429ProblemWithRetryAfterInWholeSecondsRoundedUp() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(2, 1, 1000)).build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      http.get("/api/v2/pix/" + E2E, bearer);
      http.get("/api/v2/pix/" + E2E, bearer);
      HttpResponse<String> refused = http.get("/api/v2/pix/" + E2E, bearer);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json; charset=utf-8");
      assertThat(Http.json(refused).get("type").asText())
          .isEqualTo("https://pix.bcb.gov.br/api/v2/error/LimiteDeRequisicoesExcedido");
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(refused.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v).contains("r=0"));
      JsonNode stats = Http.json(http.get("/admin/stats", null)).get("integrators").get("demo");
      assertThat(stats.get("accepted").asLong()).isEqualTo(2);
      assertThat(stats.get("refused").asLong()).isEqualTo(1);
    }
  }

  @Test
  void noRetryAfterLeavesTheHeaderOutAsTheRealDictDoes() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(1, 1, 60_000))
        .retryAfter(false).build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      http.get("/api/v2/pix/" + E2E, bearer);
      HttpResponse<String> refused = http.get("/api/v2/pix/" + E2E, bearer);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Retry-After")).isEmpty();
    }
  }

  @Test
  void aFixedRetryAfterIsWhatEvery429AsksFor() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(1, 1, 1_000))
        .retryAfterSeconds(3).build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      http.get("/api/v2/pix/" + E2E, bearer);
      HttpResponse<String> refused = http.get("/api/v2/pix/" + E2E, bearer);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Retry-After")).as("not the 1 s the bucket needs").hasValue("3");
    }
  }

  @Test
  void aHundredSimultaneousRequestsGetExactlyTheCapacity() throws Exception {
    // capacity 10, refill 1 per minute: nothing refills during the burst
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(10, 1, 60_000))
        .threads(100).build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      ExecutorService pool = Executors.newFixedThreadPool(100);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> statuses = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        statuses.add(pool.submit(() -> {
          go.await();
          return http.get("/api/v2/pix/" + E2E, bearer).statusCode();
        }));
      }
      go.countDown();
      int ok = 0;
      int tooMany = 0;
      for (Future<Integer> f : statuses) {
        int s = f.get(30, TimeUnit.SECONDS);
        ok += s == 200 ? 1 : 0;
        tooMany += s == 429 ? 1 : 0;
      }
      pool.shutdownNow();
      assertThat(ok).isEqualTo(10);
      assertThat(tooMany).isEqualTo(90);
      JsonNode stats = Http.json(http.get("/admin/stats", null)).get("integrators").get("demo");
      assertThat(stats.get("maxInWindow").asLong()).isEqualTo(10);
    }
  }

  @Test
  void aNotFoundThatCostsTwentyEmptiesTheBucket() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(10, 1, 60_000))
        .statusCost(404, 20).build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      assertThat(http.get("/api/v2/pix/E12345678202611301200ABCDEFGH404", bearer).statusCode()).isEqualTo(404);
      assertThat(http.get("/api/v2/pix/" + E2E, bearer).statusCode()).isEqualTo(429);
    }
  }
}
