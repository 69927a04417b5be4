package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each endpoint and each error, over real HTTP. The quota here is large enough never to interfere. */
class MockApiTest {
  static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  static final String TXID = "abcdefghijklmnopqrstuvwxyz12";

  private MockBacen mock;
  private Http http;
  private String bearer;

  @BeforeEach
  void start() throws Exception {
    mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(1000, 1000, 1000))
        .integrator("demo", "demo-secret").integrator("other", "other-secret").build());
    http = new Http(mock.url());
    bearer = http.bearer("demo", "demo-secret");
  }

  @AfterEach
  void stop() {
    mock.close();
  }

  private static void assertProblem(HttpResponse<String> r, int status, String name) {
    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
        ct -> assertThat(ct).startsWith("application/problem+json"));
    JsonNode body = Http.json(r);
    assertThat(body.get("type").asText()).isEqualTo("https://pix.bcb.gov.br/api/v2/error/" + name);
    assertThat(body.get("status").asInt()).isEqualTo(status);
    assertThat(body.get("title").asText()).isNotBlank();
    assertThat(body.get("correlationId").asText()).hasSize(36);
  }

  @Test
  void tokenEndpointGrantsClientCredentialsAndRefusesAWrongSecret() {
    HttpResponse<String> ok = http.token("demo", "demo-secret");
    assertThat(ok.statusCode()).isEqualTo(200);
    JsonNode body = Http.json(ok);
    assertThat(body.get("token_type").asText()).isEqualTo("Bearer");
    assertThat(body.get("expires_in").asLong()).isEqualTo(3600);
    assertThat(body.get("access_token").asText()).hasSizeGreaterThan(20);
    assertThat(http.token("demo", "wrong").statusCode()).isEqualTo(401);
    assertThat(http.token("nobody", "demo-secret").statusCode()).isEqualTo(401);
  }

  @Test
  void pixIsDeterministicAndShapedLikeTheApiPix() {
    HttpResponse<String> first = http.get("/api/v2/pix/" + E2E, bearer);
    HttpResponse<String> second = http.get("/api/v2/pix/" + E2E, http.bearer("other", "other-secret"));
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo(second.body());
    JsonNode pix = Http.json(first);
    assertThat(pix.get("endToEndId").asText()).isEqualTo(E2E);
    assertThat(pix.get("txid").asText()).matches("[a-zA-Z0-9]{26,35}");
    assertThat(pix.get("valor").asText()).matches("\\d{1,10}\\.\\d{2}");
    assertThat(pix.get("horario").asText()).startsWith("2026-11-30T12:00:");
    assertThat(pix.get("devolucoes").isArray()).isTrue();
    assertThat(http.get("/api/v2/pix/E12345678202611301200ABCDEFGHIJL", bearer).body())
        .as("another id, another body").isNotEqualTo(first.body());
  }

  @Test
  void someGeneratedPixCarryDevolucoesWithKnownStatuses() {
    int withDevolucoes = 0;
    for (int i = 0; i < 40; i++) {
      String id = String.format("E12345678202611301200ABCDEFG%04d", i);
      JsonNode pix = Http.json(http.get("/api/v2/pix/" + id, bearer));
      for (JsonNode d : pix.get("devolucoes")) {
        withDevolucoes++;
        assertThat(d.get("status").asText()).isIn("EM_PROCESSAMENTO", "DEVOLVIDO", "NAO_REALIZADO");
        assertThat(d.get("rtrId").asText()).hasSize(32);
        assertThat(d.get("horario").get("solicitacao").asText()).isNotBlank();
      }
    }
    assertThat(withDevolucoes).isPositive();
  }

  @Test
  void cobHasAStatusFromTheApi() {
    HttpResponse<String> r = http.get("/api/v2/cob/" + TXID, bearer);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode cob = Http.json(r);
    assertThat(cob.get("txid").asText()).isEqualTo(TXID);
    assertThat(cob.get("status").asText())
        .isIn("ATIVA", "CONCLUIDA", "REMOVIDA_PELO_USUARIO_RECEBEDOR", "REMOVIDA_PELO_PSP");
  }

  @Test
  void idsEndingIn404AreUnknown() {
    assertProblem(http.get("/api/v2/pix/E12345678202611301200ABCDEFGH404", bearer), 404, "PixNaoEncontrado");
    assertProblem(http.get("/api/v2/cob/abcdefghijklmnopqrstuvw404", bearer), 404, "CobNaoEncontrado");
  }

  @Test
  void malformedIdsAreInvalidRequests() {
    for (String bad : new String[] {
        "E1234567820261130120", // short
        "X12345678202611301200ABCDEFGHIJK", // not E
        "E12345678202613301200ABCDEFGHIJK", // month 13
        "E12345678202611301200ABCDEFGHIJ-"}) {
      HttpResponse<String> r = http.get("/api/v2/pix/" + bad, bearer);
      assertProblem(r, 400, "RequisicaoInvalida");
      assertThat(Http.json(r).get("violacoes").get(0).get("propriedade").asText()).isEqualTo("e2eid");
    }
    assertProblem(http.get("/api/v2/cob/short", bearer), 400, "RequisicaoInvalida");
  }

  @Test
  void missingTokenIs401AndUnknownTokenIs403() {
    HttpResponse<String> none = http.get("/api/v2/pix/" + E2E, null);
    assertProblem(none, 401, "AcessoNegado");
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertProblem(http.get("/api/v2/pix/" + E2E, "not-a-token"), 403, "AcessoNegado");
  }

  @Test
  void expiredTokenIs403() throws Exception {
    try (MockBacen shortLived = MockBacen.start(MockConfig.builder().tokenTtlSeconds(1).build())) {
      Http h = new Http(shortLived.url());
      String token = h.bearer("demo", "demo-secret");
      assertThat(h.get("/api/v2/pix/" + E2E, token).statusCode()).isEqualTo(200);
      Thread.sleep(1100);
      assertProblem(h.get("/api/v2/pix/" + E2E, token), 403, "AcessoNegado");
    }
  }

  @Test
  void policiesServeTheCallersBucket() {
    http.get("/api/v2/pix/" + E2E, bearer);
    JsonNode policy = Http.json(http.get("/api/v2/policies/pix", bearer));
    assertThat(policy.get("name").asText()).isEqualTo("pix");
    assertThat(policy.get("kind").asText()).isEqualTo("BUCKET");
    assertThat(policy.get("capacity").asLong()).isEqualTo(1000);
    assertThat(policy.get("refillTokens").asDouble()).isEqualTo(1000);
    assertThat(policy.get("refillPeriodMillis").asLong()).isEqualTo(1000);
    assertThat(policy.get("availableTokens").asDouble()).isBetween(998.0, 1000.0);
    assertProblem(http.get("/api/v2/policies/unknown", bearer), 404, "NaoEncontrado");
  }

  @Test
  void everyApiResponseCarriesRateLimitHeaders() {
    for (String path : new String[] {"/api/v2/pix/" + E2E, "/api/v2/cob/" + TXID, "/api/v2/pix/bad"}) {
      HttpResponse<String> r = http.get(path, bearer);
      assertThat(r.headers().firstValue("RateLimit-Policy")).as(path).hasValue("\"pix\";q=1000;w=1");
      assertThat(r.headers().firstValue("RateLimit")).as(path).hasValueSatisfying(
          v -> assertThat(v).matches("\"pix\";r=\\d+;t=\\d+"));
    }
  }

  @Test
  void adminStatsCountAndResetClears() {
    for (int i = 0; i < 3; i++) {
      http.get("/api/v2/pix/" + E2E, bearer);
    }
    JsonNode stats = Http.json(http.get("/admin/stats", null)).get("integrators").get("demo");
    assertThat(stats.get("accepted").asLong()).isEqualTo(3);
    assertThat(stats.get("refused").asLong()).isZero();
    assertThat(stats.get("maxInWindow").asLong()).isEqualTo(3);
    assertThat(http.post("/admin/reset").statusCode()).isEqualTo(204);
    assertThat(Http.json(http.get("/admin/stats", null)).get("integrators").get("demo").get("accepted").asLong())
        .isZero();
  }

  @Test
  void adminAnswersLoopbackCallersOnlyUnlessToldOtherwise() throws Exception {
    assertThat(MockAdmin.adminAllowed(InetAddress.getByName("127.0.0.1"), false)).isTrue();
    assertThat(MockAdmin.adminAllowed(InetAddress.getByName("::1"), false)).isTrue();
    assertThat(MockAdmin.adminAllowed(InetAddress.getByName("10.1.2.3"), false)).isFalse();
    assertThat(MockAdmin.adminAllowed(InetAddress.getByName("192.168.0.9"), false)).isFalse();
    assertThat(MockAdmin.adminAllowed(InetAddress.getByName("10.1.2.3"), true)).isTrue();
  }

  @Test
  void latencyDelaysEveryResponse() throws Exception {
    try (MockBacen slow = MockBacen.start(MockConfig.builder().latency(80, 0).build())) {
      Http h = new Http(slow.url());
      String token = h.bearer("demo", "demo-secret");
      long t0 = System.nanoTime();
      assertThat(h.get("/api/v2/pix/" + E2E, token).statusCode()).isEqualTo(200);
      assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(80);
    }
  }
}
