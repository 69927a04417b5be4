package com.example.psp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.pixquota.harness.CommandCounter;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RefusalBound;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

/**
 * The service as its application.yml declares it, against three providers and a partner of its own: the mock BACEN
 * (API Pix 10 + 10/s and DICT, at {@code localhost}), a mock settlement system allowing 6 calls in flight and
 * answering in 200 ms (at {@code 127.0.0.1}), and a partner's status page no quota takes (at {@code 127.0.0.2}); the
 * quotas' buckets and pools in a Redis of the test's own, so that every command it receives is counted.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Import(PspServiceTest.Waits.class)
class PspServiceTest {
  private static final PrivateRedisServer REDIS = PrivateRedisServer.start();
  private static final MockBacen BACEN = TestServers.mock(MockConfig.defaults());
  private static final MockBacen SPI = TestServers.mock(MockConfig.builder().maxInFlight(6).latency(200, 0)
      .policy(QuotaPolicy.bucket(1000, 1000, 1000)).build());
  private static final TestServers.Partner PARTNER = TestServers.partner("127.0.0.2");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  private int port;

  @Autowired
  private Outbound outbound;

  @Autowired
  private RestClient.Builder builder;

  @Autowired
  private MeterRegistry meters;

  @Autowired
  private Waits waits;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    int bacen = BACEN.url().getPort();
    registry.add("pixquota.provider.base-url", () -> "http://localhost:" + bacen + "/api/v2/");
    registry.add("pixquota.quotas.dict.dict.base-url", () -> "http://localhost:" + bacen + "/api/v1/");
    registry.add("pixquota.redis.url", () -> REDIS.uri().toString());
    registry.add("psp.spi-url", () -> SPI.url() + "/");
    registry.add("psp.partner-url", () -> PARTNER.url());
  }

  @AfterAll
  static void stop() {
    PARTNER.close();
    SPI.close();
    BACEN.close();
    REDIS.close();
  }

  /** What the throttle observed as "waiting for quota": one observation per wait, with the tracing bridge a span. */
  @TestConfiguration
  static class Waits implements ObservationHandler<Observation.Context> {
    final List<String> seen = new CopyOnWriteArrayList<>();

    @Override
    public void onStart(Observation.Context context) {
      if ("pixquota.wait".equals(context.getName())) {
        seen.add(context.getName());
      }
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
      return true;
    }
  }

  @Test
  void theHostNoQuotaTakesIsNotThrottledAtAll() throws Exception {
    RestClient direct = builder.clone().baseUrl(PARTNER.url()).build(); // the same client, without the throttle
    for (int i = 0; i < 200; i++) { // both warm: connections, JIT
      assertThat(outbound.partnerStatus()).isEqualTo("up");
      assertThat(direct.get().uri("status").retrieve().body(String.class)).isEqualTo("up");
    }
    int spansBefore = waits.seen.size();
    long waitsBefore = waitCount();
    long[] through = new long[500];
    long[] plain = new long[through.length];
    try (CommandCounter redis = new CommandCounter(REDIS.uri(), System.currentTimeMillis())) {
      for (int i = 0; i < through.length; i++) { // interleaved: both see the same machine
        long t0 = System.nanoTime();
        outbound.partnerStatus();
        long t1 = System.nanoTime();
        direct.get().uri("status").retrieve().body(String.class);
        through[i] = t1 - t0;
        plain[i] = System.nanoTime() - t1;
      }
      redis.settle();
      double p99Through = p99(through);
      double p99Direct = p99(plain);
      System.out.printf("partner host, %d calls each: p99 %.2f ms through the throttle's client, %.2f ms direct; "
          + "Redis commands %d (keep-alive PINGs %d); waits observed %d%n", through.length, p99Through, p99Direct,
          redis.commands() - redis.pingCommands(), redis.pingCommands(), waits.seen.size() - spansBefore);
      assertThat(redis.commands() - redis.pingCommands()).as("Redis commands while only the partner was called")
          .isZero();
      assertThat(p99Through).as("p99 through the throttle's client, ms").isLessThanOrEqualTo(p99Direct + 5);
    }
    assertThat(waits.seen.size() - spansBefore).as("no \"waiting for quota\" observation").isZero();
    assertThat(waitCount()).as("no wait meter").isEqualTo(waitsBefore);
    assertThat(PARTNER.requests()).isEqualTo(2 * (200 + through.length));
  }

  @Test
  void aBurstOnEachQuotaIsServedWithoutA429() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      String e2e = String.format("E12345678202611301200ABCDEF%05d", i);
      calls.add(get("/pix/" + e2e));
      calls.add(get("/settlements/" + e2e));
      calls.add(get("/partner"));
      if (i < 10) {
        calls.add(get("/keys/user" + i + "@example.com?payer=1234567890" + i));
      }
    }
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      HttpResponse<String> r = call.get(60, TimeUnit.SECONDS);
      assertThat(r.statusCode()).as("%s: %s", r.uri(), r.body()).isEqualTo(200);
    }
    Map<String, Object> pix = BACEN.stats("demo", false);
    long allowed = RefusalBound.allowed(10, 10, 8, 9.5, jitterSeconds("pix"));
    Map<String, Object> inFlight = SPI.inFlightStats("demo");
    long dictRefused = ((Map<?, ?>) BACEN.dictStats().get("policies")).values().stream()
        .mapToLong(v -> ((Number) ((Map<?, ?>) v).get("refused")).longValue()).sum();
    System.out.printf("burst: API Pix accepted %s, refused %s (the measured jitter allows %d); DICT refused %d; "
        + "settlement system in flight at most %s of %s, refused %s%n", pix.get("accepted"), pix.get("refused"),
        allowed, dictRefused, inFlight.get("mostSeen"), inFlight.get("max"), inFlight.get("refused"));
    assertThat(((Number) pix.get("refused")).longValue()).as("API Pix's 429s: %s", pix).isLessThanOrEqualTo(allowed);
    assertThat(dictRefused).as("DICT's 429s").isZero();
    assertThat(((Number) inFlight.get("refused")).longValue()).as("over the settlement system's cap").isZero();
    assertThat(((Number) inFlight.get("mostSeen")).longValue()).as("the cap, used").isEqualTo(6);
    assertThat(((Number) SPI.stats("demo", false).get("refused")).longValue()).isZero();

    JsonNode health = JSON.readTree(get("/actuator/health").get(10, TimeUnit.SECONDS).body())
        .path("components").path("pixquota");
    assertThat(health.path("status").asText()).isEqualTo("UP");
    assertThat(health.path("details").has("pix")).as("%s", health).isTrue();
    assertThat(health.path("details").has("dict-12345678")).as("%s", health).isTrue();
    assertThat(health.path("details").path("inFlight").path("spi").path("maxInFlight").asInt()).isEqualTo(6);
    assertThat(meters.find("bacen.throttle.wait").tag("quota", "spi").timers()).isNotEmpty();
    assertThat(meters.find("bacen.throttle.wait").tag("quota", "dict").timers()).isNotEmpty();
  }

  private CompletableFuture<HttpResponse<String>> get(String path) {
    return http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** How far the quota's calls reached the provider from their slots in this run: lateness plus answer, at most. */
  private double jitterSeconds(String quota) {
    return max("bacen.throttle.lateness", quota) + max("bacen.throttle.answer", quota);
  }

  private double max(String meter, String quota) {
    return meters.find(meter).tag("quota", quota).timers().stream().mapToDouble(t -> t.max(TimeUnit.SECONDS))
        .max().orElse(0);
  }

  private long waitCount() {
    return meters.find("bacen.throttle.wait").timers().stream().mapToLong(Timer::count).sum();
  }

  private static double p99(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e6;
  }
}
