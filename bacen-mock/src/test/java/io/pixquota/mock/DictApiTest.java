package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The judge's DICT over real HTTP, with a plain JDK client: the spec's XML, the headers it requires, each policy's
 * counting (charged after the answer, a refusal too where the counting says so), the PI-RateLimit headers, the
 * policies' states and a settlement's credit, given once.
 */
class DictApiTest {
  static final String ISPB = "12345678";
  static final String PAYER = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
  static final String E2E = "E12345678202612011200abcdefghijk";
  static final String KNOWN = "user7@example.com";
  static final String UNKNOWN = "nobody-at-all@example.com";

  private MockBacen mock;
  private Http http;

  private void start(DictPolicies table) throws Exception {
    mock = MockBacen.start(MockConfig.builder().dict(table).build());
    http = new Http(mock.url());
  }

  @AfterEach
  void stop() {
    if (mock != null) {
      mock.close();
    }
  }

  private HttpResponse<String> lookup(String key, String payer, String e2eid) {
    HttpRequest.Builder b = HttpRequest.newBuilder(mock.url().resolve("/api/v1/entries/" + key)).GET()
        .header("PI-RequestingParticipant", ISPB);
    if (payer != null) {
      b.header("PI-PayerId", payer);
    }
    if (e2eid != null) {
      b.header("PI-EndToEndId", e2eid);
    }
    return http.send(b.build());
  }

  private static String header(HttpResponse<String> r, String name) {
    return r.headers().firstValue(name).orElse(null);
  }

  @Test
  void aKnownKeyAnswersTheSpecsEntryAndAnUnknownOneAProblem() throws Exception {
    start(DictPolicies.v120());
    HttpResponse<String> found = lookup(KNOWN, PAYER, E2E);
    assertThat(found.statusCode()).isEqualTo(200);
    assertThat(header(found, "Content-Type")).startsWith("application/xml");
    assertThat(found.body()).contains("<GetEntryResponse>", "<Key>" + KNOWN + "</Key>", "<KeyType>EMAIL</KeyType>",
        "<Participant>" + ISPB + "</Participant>", "<Owner><Type>NATURAL_PERSON</Type>", "<CreationDate>");
    HttpResponse<String> missing = lookup(UNKNOWN, PAYER, E2E);
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(header(missing, "Content-Type")).startsWith("application/problem+xml");
    assertThat(missing.body()).contains("<type>https://dict.pi.rsfn.net.br/api/v1/error/NotFound</type>");
    assertThat(lookup(DictDirectory.registered("CPF", 3), PAYER, E2E).statusCode()).isEqualTo(200);
    assertThat(lookup(DictDirectory.registered("EVP", 999), PAYER, E2E).statusCode()).isEqualTo(200);
    assertThat(lookup(DictDirectory.registered("PHONE", 12), PAYER, E2E).statusCode()).isEqualTo(200);
  }

  @Test
  void theRequiredHeadersAreRequired() throws Exception {
    start(DictPolicies.v120());
    for (HttpResponse<String> r : List.of(lookup(KNOWN, null, E2E), lookup(KNOWN, PAYER, null),
        lookup(KNOWN, "not hex!", E2E), lookup("not-a-key", PAYER, E2E),
        http.send(HttpRequest.newBuilder(mock.url().resolve("/api/v1/entries/" + KNOWN)).GET().build()))) {
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body()).contains("/error/BadRequest</type>");
    }
    assertThat(mock.dictStats().get("policies")).as("a bad request is charged nowhere").isEqualTo(Map.of());
  }

  @Test
  void underTheLaterCountingAScannerDrainsItsBucketThenTheParticipantsThroughItsRefusals() throws Exception {
    start(DictPolicies.later('F'));
    for (int i = 0; i < 5; i++) {
      HttpResponse<String> r = lookup(UNKNOWN, PAYER, E2E);
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(header(r, "PI-RateLimit-ClientPolicy")).isEqualTo("ENTRIES_READ_USER_ANTISCAN");
      assertThat(header(r, "PI-RateLimit-ClientRemaining")).isEqualTo(Integer.toString(80 - 20 * i));
      assertThat(header(r, "PI-RateLimit-ParticipantPolicy")).isEqualTo("ENTRIES_READ_PARTICIPANT_ANTISCAN");
      assertThat(header(r, "PI-RateLimit-ParticipantRemaining")).isEqualTo(Integer.toString(247 - 3 * i));
    }
    HttpResponse<String> refused = lookup(UNKNOWN, PAYER, E2E);
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).contains("/error/RateLimited</type>");
    assertThat(header(refused, "Retry-After")).as("DICT's 429 carries no Retry-After").isNull();
    assertThat(header(refused, "PI-RateLimit-ClientRemaining")).isEqualTo("0");
    assertThat(header(refused, "PI-RateLimit-ParticipantRemaining")).as("the refusal cost the participant 1")
        .isEqualTo("234");
    HttpResponse<String> other = lookup(KNOWN, PAYER.replace('a', 'f'), E2E);
    assertThat(other.statusCode()).as("another end user is not refused").isEqualTo(200);
    assertThat(header(other, "PI-RateLimit-ClientRemaining")).isEqualTo("99");
  }

  @Test
  void v120CountsOnlyEmailAndPhoneAtTheAntiScanPoliciesAndA404CostsTheParticipantNothing() throws Exception {
    start(DictPolicies.v120());
    HttpResponse<String> cpf = lookup(DictDirectory.registered("CPF", 1), PAYER, E2E);
    assertThat(header(cpf, "PI-RateLimit-ClientPolicy")).as("a CPF key: no user-scope policy").isNull();
    assertThat(header(cpf, "PI-RateLimit-ParticipantPolicy")).isEqualTo("ENTRIES_READ");
    HttpResponse<String> missing = lookup(UNKNOWN, PAYER, E2E);
    assertThat(header(missing, "PI-RateLimit-ClientRemaining")).isEqualTo("48");
    assertThat(header(missing, "PI-RateLimit-ParticipantPolicy")).isEqualTo("ENTRIES_READ_PARTICIPANT_ANTISCAN");
    assertThat(header(missing, "PI-RateLimit-ParticipantRemaining")).isEqualTo("5000");
  }

  @Test
  void aSettlementCreditsItsLookupOnceAndThePoliciesShowTheBuckets() throws Exception {
    start(DictPolicies.later('F'));
    lookup(KNOWN, PAYER, E2E);
    lookup(UNKNOWN, PAYER, "E12345678202612011200bbbbbbbbbbb");
    assertThat(http.send(HttpRequest.newBuilder(mock.url().resolve("/api/v1/policies/"
        + "ENTRIES_READ_PARTICIPANT_ANTISCAN")).header("PI-RequestingParticipant", ISPB).GET().build()).body())
        .contains("<GetBucketStateResponse>", "<Category>F</Category>", "<AvailableTokens>246</AvailableTokens>",
            "<Capacity>250</Capacity>", "<RefillTokens>25</RefillTokens>", "<RefillPeriodSec>60</RefillPeriodSec>");
    HttpRequest settle = HttpRequest.newBuilder(mock.url().resolve("/api/v1/settlements/" + E2E))
        .header("PI-RequestingParticipant", ISPB).POST(HttpRequest.BodyPublishers.noBody()).build();
    assertThat(http.send(settle).statusCode()).isEqualTo(204);
    assertThat(http.send(settle).statusCode()).as("a credit is given once").isEqualTo(404);
    assertThat(http.send(HttpRequest.newBuilder(mock.url().resolve("/api/v1/settlements/"
        + "E12345678202612011200bbbbbbbbbbb")).header("PI-RequestingParticipant", ISPB)
        .POST(HttpRequest.BodyPublishers.noBody()).build()).statusCode()).as("a 404 earns no credit").isEqualTo(404);
    String all = http.send(HttpRequest.newBuilder(mock.url().resolve("/api/v1/policies"))
        .header("PI-RequestingParticipant", ISPB).GET().build()).body();
    assertThat(all).contains("<ListPoliciesResponse>", "<Name>ENTRIES_READ_USER_ANTISCAN</Name><Scope>USER</Scope>",
        "<AvailableTokens>247</AvailableTokens>");
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Long>> policies = (Map<String, Map<String, Long>>) mock.dictStats().get("policies");
    assertThat(policies.get(ISPB + "|ENTRIES_READ_PARTICIPANT_ANTISCAN")).containsEntry("charged", 4L)
        .containsEntry("credited", 1L).containsEntry("refused", 0L);
  }

  /**
   * DICT moves the participant from category E (1000 at 500 a minute) to F (250 at 25): the tokens it holds are kept
   * up to F's capacity, GET /policies says F; a table without categories refuses, naming it, as does a bad letter.
   */
  @Test
  void aParticipantMovedToAnotherCategoryKeepsItsTokensUpToTheNewSize() throws Exception {
    start(DictPolicies.later('E'));
    lookup(UNKNOWN, PAYER, E2E); // a 404: 3 at the participant's bucket
    HttpRequest policy = HttpRequest.newBuilder(mock.url().resolve("/api/v1/policies/"
        + "ENTRIES_READ_PARTICIPANT_ANTISCAN")).header("PI-RequestingParticipant", ISPB).GET().build();
    assertThat(http.send(policy).body()).contains("<Capacity>1000</Capacity>",
        "<AvailableTokens>997</AvailableTokens>");
    assertThat(http.post("/admin/dict/category?to=F").statusCode()).isEqualTo(204);
    assertThat(http.send(policy).body()).contains("<Category>F</Category>", "<Capacity>250</Capacity>",
        "<AvailableTokens>250</AvailableTokens>", "<RefillTokens>25</RefillTokens>");
    HttpResponse<String> next = lookup(KNOWN, PAYER, "E12345678202612011200ccccccccccc");
    assertThat(header(next, "PI-RateLimit-ParticipantRemaining")).isEqualTo("249");
    mock.dictCategory('e');
    String larger = http.send(policy).body();
    assertThat(larger).contains("<Capacity>1000</Capacity>");
    java.util.regex.Matcher held = java.util.regex.Pattern.compile("<AvailableTokens>(\\d+)<").matcher(larger);
    assertThat(held.find()).isTrue();
    // what the bucket held, and E's 500 a minute since: not filled to its new capacity
    assertThat(Long.parseLong(held.group(1))).as(larger).isBetween(249L, 300L);
    assertThat(http.post("/admin/dict/category?to=Z").body()).contains("category must be one of A..H, but was 'Z'");
    assertThat(http.post("/admin/dict/category").body()).contains("to must be one letter A..H, but was ''");
    mock.close();
    start(DictPolicies.v120());
    assertThatThrownBy(() -> mock.dictCategory('F')).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only the later counting has categories");
  }
}
