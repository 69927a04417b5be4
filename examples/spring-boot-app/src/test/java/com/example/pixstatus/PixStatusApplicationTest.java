package com.example.pixstatus;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.RefusalBound;
import io.pixquota.harness.RespConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application as it runs: a burst of people asking at once through its own HTTP endpoint, each a PixClient call
 * to the mock BACEN (10 + 10/s), through the quota's bucket, planned from the provider's quota declared in application.yml; then its actuator
 * over HTTP.
 */
// Spring Boot's tests switch metrics export off by default; this application's test is about them.
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "management.prometheus.metrics.export.enabled=true")
class PixStatusApplicationTest {
  private static final int BURST = 30;
  private static final String INTEGRATOR = "demo";
  private static final TestProvider PROVIDER = TestProvider.start();
  private static final String BUCKET = "pix"; // the quota's, in application.yml
  private static final String KEYS = "example-" + System.nanoTime() + ":";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}") // not @LocalServerPort: its package differs between Boot 3 and 4
  private int port;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    PROVIDER.register(registry, KEYS);
  }

  @AfterAll
  static void stop() {
    PROVIDER.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aBurstOfPeopleIsServedWithinTheQuotaAndTheActuatorShowsIt() throws Exception {
    long acceptedBefore = accepted();
    String before = get("/actuator/prometheus").body();
    List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      String e2e = String.format("E12345678202611301200ABCDEF%05d", i);
      burst.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/pix/" + e2e))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> f : burst) {
      HttpResponse<String> r = f.join();
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(r.body()).contains("\"endToEndId\"");
    }
    Map<String, Object> stats = PROVIDER.mock.stats(INTEGRATOR, false);
    long refused = ((Number) stats.get("refused")).longValue();
    assertThat(accepted() - acceptedBefore).isEqualTo(BURST);
    assertThat(refused).as("the provider's own audit: 429s within what the run's measured jitter allows")
        .isLessThanOrEqualTo(allowedRefusals(get("/actuator/prometheus").body()));

    HttpResponse<String> health = get("/actuator/health");
    assertThat(health.statusCode()).isEqualTo(200);
    JsonNode pixquota = JSON.readTree(health.body()).path("components").path("pixquota");
    assertThat(pixquota.path("status").asText()).isEqualTo("UP");
    JsonNode bucket = pixquota.path("details").path(BUCKET);
    assertThat(bucket.path("scriptLoaded").asBoolean()).as("warmed up when the application was ready").isTrue();
    assertThat(bucket.path("redisReachable").asBoolean()).isTrue();
    assertThat(bucket.path("localFallbackActive").asBoolean()).isFalse();

    String after = get("/actuator/prometheus").body();
    assertThat(delta(before, after, "bacen_client_answers_total", "status=\"200\"")).isEqualTo(BURST);
    assertThat(counter(after, "bacen_client_answers_total", "status=\"429\"")).isEqualTo(refused);
    assertThat(delta(before, after, "bacen_throttle_wait_seconds_count", "priority=\"interactive\""))
        .as("a slot per attempt: each 429 was retried through the bucket").isEqualTo(BURST + refused);

    HttpResponse<String> quota = get("/actuator/pixquota");
    assertThat(quota.statusCode()).isEqualTo(200);
    JsonNode state = JSON.readTree(quota.body()).path("buckets").path(BUCKET);
    assertThat(state.path("configurations")).hasSize(1);
    assertThat(state.path("effectiveRatePerSecond").asDouble()).as("planned under the mock's 10/s")
        .isGreaterThan(9).isLessThan(10);
    assertThat(state.path("tokens").asDouble()).isLessThan(10);
  }

  @Test
  void anOperatorClearsAStaleConfigurationOverHttp() throws Exception {
    assertThat(get("/pix/E12345678202611301200ABCDEFGHIJK").statusCode()).isEqualTo(200);
    URI redis = URI.create(PROVIDER.redisUrl);
    try (RespConnection admin = RespConnection.open(redis.getHost(), redis.getPort())) {
      List<?> time = (List<?>) admin.call("TIME");
      long now = Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
      admin.call("HSET", KEYS + "{" + BUCKET + "}:tb", "c:1.0:0.01", Long.toString(now + 60_000_000));
    }
    HttpResponse<String> cleared = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port
        + "/actuator/pixquota/" + BUCKET + "/1.0:0.01")).DELETE().timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(cleared.statusCode()).as(cleared.body()).isEqualTo(200);
    assertThat(JSON.readTree(cleared.body()).path("cleared").asBoolean()).isTrue();
    assertThat(JSON.readTree(get("/actuator/pixquota").body()).path("buckets").path(BUCKET).path("configurations"))
        .hasSize(1);
  }

  @Test
  void aBatchQuestionUsesTheBatchClass() throws Exception {
    String before = get("/actuator/prometheus").body();
    assertThat(get("/pix/E12345678202611301200ABCDEFGHIJK?priority=BATCH").statusCode()).isEqualTo(200);
    assertThat(delta(before, get("/actuator/prometheus").body(), "bacen_throttle_wait_seconds_count",
        "priority=\"batch\"")).isEqualTo(1);
  }

  /**
   * "0 x 429" holds while calls reach the provider within the plan's J of their slots. The SDK's meters say how far
   * they did in this run (a call arrives at most its lateness plus its answer time after its slot); the 429s that
   * such a jitter allows (none within the plan's J) follow from the plan and the mock's bucket of 10 + 10/s.
   */
  private long allowedRefusals(String prometheus) throws Exception {
    String bucket = "bucket=\"" + BUCKET + "\"";
    double jitterSeconds = counter(prometheus, "bacen_throttle_lateness_seconds_max", bucket)
        + counter(prometheus, "bacen_throttle_answer_seconds_max", bucket);
    String configuration = JSON.readTree(get("/actuator/pixquota").body()).path("buckets").path(BUCKET)
        .path("configurations").get(0).asText(); // "<capacity>:<refill per second>"
    String[] limit = configuration.split(":");
    long allowed = RefusalBound.allowed(10, 10, Double.parseDouble(limit[0]), Double.parseDouble(limit[1]),
        jitterSeconds);
    System.out.printf("burst of %d: calls reached the provider within %.1f ms of their slots; %s allows %d x 429%n",
        BURST, jitterSeconds * 1000, configuration, allowed);
    return allowed;
  }

  private static long accepted() {
    Object a = PROVIDER.mock.stats(INTEGRATOR, false).get("accepted");
    return a == null ? 0 : ((Number) a).longValue();
  }

  private static double delta(String before, String after, String name, String label) {
    return counter(after, name, label) - counter(before, name, label);
  }

  /** The sum of a Prometheus counter's samples whose labels contain {@code label}. */
  private static double counter(String exposition, String name, String label) {
    double sum = 0;
    Matcher m = Pattern.compile("(?m)^" + name + "\\{([^}]*)\\} ([0-9.eE+-]+)$").matcher(exposition);
    while (m.find()) {
      if (m.group(1).contains(label)) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }
}
