package com.example.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.FreePorts;
import io.pixquota.harness.PrivateRedisServer;
import java.io.File;
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
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * README.md's Spring Boot quick start, step by step: a Redis; the mock BACEN started as the README starts it
 * ({@code java -jar bacen-mock/target/bacen-mock.jar --port 9090 --integrator demo=demo-secret --pix-prefix /api/v2});
 * the reader's service, the jar the quick-start project built from the README's pom.xml, application.yml and
 * PixStatusApplication.java as they are; then the README's requests: one getPix, a burst of 10, /actuator/pixquota,
 * the meter {@code bacen.throttle.wait} and the mock's own count. Only the ports (the README's 9090, 8080, 6379) and a
 * Redis key prefix of its own are given on the command line, as Spring Boot takes any property.
 */
class QuickStartRunTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Path LOGS = Path.of("target");

  private static PrivateRedisServer ownRedis;
  private static Process mock;
  private static Process service;
  private static int mockPort;
  private static int servicePort;

  @BeforeAll
  static void start() throws Exception {
    String given = System.getProperty("redis.url", "");
    String redisUrl;
    if (given.isBlank() || given.startsWith("$")) {
      ownRedis = PrivateRedisServer.start();
      redisUrl = ownRedis.uri().toString();
    } else {
      redisUrl = given;
    }
    mockPort = FreePorts.pick();
    mock = java("mock", List.of("-jar", jar("mock.jar"), "--port", String.valueOf(mockPort),
        "--integrator", "demo=demo-secret", "--pix-prefix", "/api/v2"));
    awaitOk("http://127.0.0.1:" + mockPort + "/admin/stats", mock);
    servicePort = FreePorts.pick();
    service = java("service", List.of("-jar", jar("quick-start.jar"),
        "--pixquota.provider.base-url=http://127.0.0.1:" + mockPort + "/api/v2/",
        "--pixquota.redis.url=" + redisUrl,
        "--pixquota.bucket.key-prefix=quick-start-" + System.nanoTime() + ":",
        "--server.port=" + servicePort));
    awaitOk(service("/actuator/health"), service);
  }

  @AfterAll
  static void stop() {
    for (Process p : new Process[] {service, mock}) {
      if (p != null) {
        p.destroy();
      }
    }
    if (ownRedis != null) {
      ownRedis.close();
    }
  }

  @Test
  void theReadersServiceThrottlesGetPixAgainstTheMock() throws Exception {
    HttpResponse<String> one = get(service("/pix/" + E2E));
    assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
    assertThat(JSON.readTree(one.body()).path("endToEndId").asText()).isEqualTo(E2E);

    Thread.sleep(1_100); // the bucket full again, as it is when a reader types the burst's command
    List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      burst.add(HTTP.sendAsync(request(service("/pix/" + E2E)), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> f : burst) {
      assertThat(f.join().statusCode()).isEqualTo(200);
    }

    JsonNode stats = JSON.readTree(get("http://127.0.0.1:" + mockPort + "/admin/stats").body())
        .path("integrators").path("demo");
    System.out.println("the mock's count: " + stats);
    // 10 calls never overrun a provider bucket of 10 whatever their timing: 0 x 429 is not luck here
    assertThat(stats.path("refused").asLong()).as("the mock's 429s").isZero();
    assertThat(stats.path("accepted").asLong()).isEqualTo(11);

    JsonNode bucket = JSON.readTree(get(service("/actuator/pixquota")).body()).path("buckets").path("pix");
    System.out.println("/actuator/pixquota: " + bucket);
    assertThat(bucket.path("effectiveRatePerSecond").asDouble()).as("the planner's 9.95/s under 10 + 10/s")
        .isCloseTo(9.95, within(0.01));
    assertThat(bucket.path("configurations")).hasSize(1);

    JsonNode waits = JSON.readTree(get(service("/actuator/metrics/bacen.throttle.wait")).body());
    System.out.println("bacen.throttle.wait: " + waits);
    assertThat(measurement(waits, "COUNT")).as("every getPix asked the bucket").isGreaterThanOrEqualTo(11);
    // the planned bucket holds 9 calls: the tenth of the burst waits for its slot (a cold service, longer)
    assertThat(measurement(waits, "MAX")).as("the longest wait, in seconds").isGreaterThan(0.02);
  }

  private static double measurement(JsonNode meter, String statistic) {
    for (JsonNode m : meter.path("measurements")) {
      if (m.path("statistic").asText().equals(statistic)) {
        return m.path("value").asDouble();
      }
    }
    throw new AssertionError("no " + statistic + " in " + meter);
  }

  private static String service(String path) {
    return "http://127.0.0.1:" + servicePort + path;
  }

  private static String jar(String property) {
    String jar = System.getProperty(property);
    assertThat(new File(jar)).as(property).isFile();
    return jar;
  }

  private static Process java(String name, List<String> args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(args);
    File log = LOGS.resolve(name + ".log").toFile();
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
  }

  private static void awaitOk(String url, Process process) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (System.nanoTime() < deadline) {
      assertThat(process.isAlive()).as("%s is running (its log is in target/)", url).isTrue();
      try {
        if (get(url).statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError(url + " did not answer 200 within 90 s");
  }

  private static HttpRequest request(String url) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build();
  }

  private static HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return HTTP.send(request(url), HttpResponse.BodyHandlers.ofString());
  }
}
