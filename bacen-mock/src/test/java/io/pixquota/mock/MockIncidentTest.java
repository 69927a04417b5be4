package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A provider incident: every API Pix request answered 503 (or a 429 of the provider's own, with Retry-After) for a
 * while, outside the quota; counted apart from the audit, which keeps the quota's view. Then served again.
 */
class MockIncidentTest {
  private static final String PIX = "/api/v2/pix/E12345678202611301200ABCDEFGHIJK";

  @Test
  void anIncidentAnswersEveryRequestOutsideTheQuotaThenEnds() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(2, 1, 60_000)).build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      mock.incident(503, 60_000, 0);
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> r = http.get(PIX, bearer);
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).isEmpty();
      }
      assertThat(mock.incidentAnswers()).isEqualTo(5);
      assertThat(((Number) mock.stats("demo", false).get("accepted")).longValue()).isZero();
      assertThat(((Number) mock.stats("demo", false).get("refused")).longValue()).isZero();
      mock.incident(503, 1, 0); // a new incident replaces the first: it ends 1 ms from now
      long deadline = System.nanoTime() + 5_000_000_000L;
      int status = http.get(PIX, bearer).statusCode();
      while (status == 503 && System.nanoTime() < deadline) { // an incident's answer charges nothing: ask until it ends
        status = http.get(PIX, bearer).statusCode();
      }
      // the quota was never charged: its burst of 2 is whole
      assertThat(status).isEqualTo(200);
      assertThat(http.get(PIX, bearer).statusCode()).isEqualTo(200);
      assertThat(http.get(PIX, bearer).statusCode()).isEqualTo(429);
      assertThat(mock.incidentAnswers()).isGreaterThanOrEqualTo(5);
    }
  }

  @Test
  void aProvidersOwn429CarriesItsRetryAfterAndIsSetThroughAdmin() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      assertThat(http.post("/admin/incident?status=429&ms=60000&retryAfter=2").statusCode()).isEqualTo(204);
      HttpResponse<String> r = http.get(PIX, bearer);
      assertThat(r.statusCode()).isEqualTo(429);
      assertThat(r.headers().firstValue("Retry-After")).contains("2");
      assertThat(Http.json(http.get("/admin/stats", null)).get("incidentAnswers").asLong()).isEqualTo(1);
      HttpResponse<String> bad = http.post("/admin/incident?status=200&ms=1000");
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body()).contains("an incident's status must be 429 or 5xx, but was 200");
      assertThat(http.post("/admin/incident?status=503").body()).contains("status, ms, retryAfter");
    }
  }

  @Test
  void badIncidentsAreRefusedNamingTheValue() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().build())) {
      assertThatThrownBy(() -> mock.incident(503, 0, 0)).hasMessage(
          "an incident's length must be within 1..3600000 ms, but was 0");
      assertThatThrownBy(() -> mock.incident(503, 10, -1)).hasMessage(
          "an incident's Retry-After must be 0 or more, but was -1");
    }
  }
}
