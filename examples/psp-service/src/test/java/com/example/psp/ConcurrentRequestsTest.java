package com.example.psp;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RefusalBound;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service as a Spring MVC service runs it on Java 21+, every request on a virtual thread
 * ({@code spring.threads.virtual.enabled}; on Java 17 Spring ignores it and Tomcat's threads serve), 2,000 requests
 * at once for a PIX status, each calling the blocking {@code PixClient.getPix}: every one is served or refused as
 * documented (503 "busy, try again" past the quota's max wait), the provider sees no 429, and the connections to it
 * follow the calls in flight there, not the requests waiting (Linux's {@code /proc/net/tcp}, sampled every 10 ms).
 * The mock closes connections idle for 5 s, as a gateway does.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.threads.virtual.enabled=true", "server.tomcat.max-connections=4096",
        "server.tomcat.accept-count=4096"})
class ConcurrentRequestsTest {
  private static final int REQUESTS = 2_000;
  private static final PrivateRedisServer REDIS = PrivateRedisServer.start();
  private static final MockBacen BACEN = TestServers.mock(MockConfig.builder().latency(20, 0)
      .idleTimeoutSeconds(5).build());

  @Value("${local.server.port}")
  private int port;

  @Autowired
  private MeterRegistry meters;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    int bacen = BACEN.url().getPort();
    registry.add("pixquota.provider.base-url", () -> "http://localhost:" + bacen + "/api/v2/");
    registry.add("pixquota.quotas.dict.dict.base-url", () -> "http://localhost:" + bacen + "/api/v1/");
    registry.add("pixquota.redis.url", () -> REDIS.uri().toString());
  }

  @AfterAll
  static void stop() {
    BACEN.close();
    REDIS.close();
  }

  @Test
  void twoThousandRequestsAtOnceAreServedOrRefusedWithConnectionsFollowingTheCallsInFlight() throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    assertThat(send(http, "/pix/E12345678202611301200WARMUP00001").get(30, TimeUnit.SECONDS).statusCode())
        .isEqualTo(200); // the token fetched, the stores prepared, the first connection opened
    BACEN.reset();
    int bacenPort = BACEN.url().getPort();
    AtomicInteger mostConnections = new AtomicInteger();
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        mostConnections.accumulateAndGet(establishedTo(bacenPort), Math::max);
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    sampler.start();
    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < REQUESTS; i++) {
      calls.add(send(http, String.format(Locale.ROOT, "/pix/E12345678202611301200ABCDE%05dZ", i)));
    }
    Map<String, Integer> outcomes = new TreeMap<>();
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      HttpResponse<String> r = call.get(120, TimeUnit.SECONDS);
      String outcome = r.statusCode() == 200 ? "200"
          : r.statusCode() == 503 && r.body().contains("busy, try again") ? "503 busy" : r.statusCode() + " " + r.body();
      outcomes.merge(outcome, 1, Integer::sum);
    }
    sampling.set(false);
    sampler.join();
    Map<String, Object> pix = BACEN.stats("demo", false);
    Map<String, Object> inFlight = BACEN.inFlightStats("demo");
    long allowed = RefusalBound.allowed(10, 10, 8, 9.5, jitterSeconds());
    int mostInFlight = ((Number) inFlight.get("mostSeen")).intValue();
    System.out.printf("%d requests at once (Java %s, virtual threads %s): %s; the provider accepted %s, refused %s "
        + "(the measured jitter allows %d); connections to it at most %d, calls in flight there at most %d%n",
        REQUESTS, Runtime.version(), Runtime.version().feature() >= 21 ? "on" : "off (Java 17)", outcomes,
        pix.get("accepted"), pix.get("refused"), allowed, mostConnections.get(), mostInFlight);
    assertThat(outcomes.keySet()).as("every request served or refused as documented").isSubsetOf("200", "503 busy");
    assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(REQUESTS);
    // the quota used in the 5 s max wait: 8 + 9.5/s, above 40 served; a 429 (which the measured jitter may allow)
    // holds the fleet for its Retry-After (the mock's 1 s) and cuts the rate to 0.85: a second of the rate less
    long refused = ((Number) pix.get("refused")).longValue();
    assertThat(outcomes.get("200")).as("served: the quota used, %d refused by the provider", refused)
        .isGreaterThan(refused == 0 ? 40 : 30);
    assertThat(refused).as("API Pix's 429s: %s", pix).isLessThanOrEqualTo(allowed);
    // Waiting requests hold none (before, each held one: up to Tomcat's 200 threads, or all 2,000 on virtual
    // threads). What a connection follows is a call leaving: at most the quota's burst (8) leave at once, each may
    // open one (a cold pool), and the start's idle ones (token, DICT's policies) stay open until the mock closes
    // them. A call whose thread woke past the late limit after it opened its connection (2,000 virtual threads on
    // a busy machine: carriers late) books again and leaves that connection idle in the pool for up to the mock's
    // 5 s: at most one each of the calls this run counted as rebooked.
    int rebooked = (int) meters.find("bacen.throttle.rebooked").counters().stream()
        .mapToDouble(Counter::count).sum();
    System.out.printf("calls booked again (late): %d%n", rebooked);
    assertThat(mostConnections.get()).as("connections to the provider, against the calls in flight there and the "
        + "%d calls that booked again", rebooked).isPositive()
        .isLessThanOrEqualTo(mostInFlight + 8 + 4 + rebooked).isLessThan(REQUESTS / 10);
  }

  private CompletableFuture<HttpResponse<String>> send(HttpClient http, String path) {
    return http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** ESTABLISHED TCP connections to {@code port} on this machine (Linux's tables): the clients' side of each. */
  private static int establishedTo(int port) {
    String remote = String.format(Locale.ROOT, ":%04X", port);
    int count = 0;
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      try {
        for (String line : Files.readAllLines(Path.of(table))) {
          String[] f = line.trim().split("\\s+");
          if (f.length > 3 && f[2].endsWith(remote) && f[3].equals("01")) {
            count++;
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException("this test counts connections in Linux's " + table, e);
      }
    }
    return count;
  }

  private double jitterSeconds() {
    return max("bacen.throttle.lateness") + max("bacen.throttle.answer");
  }

  private double max(String meter) {
    return meters.find(meter).tag("quota", "pix").timers().stream().mapToDouble(t -> t.max(TimeUnit.SECONDS))
        .max().orElse(0);
  }
}
