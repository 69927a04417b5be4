package com.example.quickstart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.Limit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The README's Spring Boot YAML as this application's own, against a provider that serves only {@code /oauth/token}
 * and {@code /pix/{e2eid}} (404 for anything else, as API Pix, which has no policies endpoint): the application starts,
 * its quota's bucket is the planner's from the declared {@code 10 + 10/s}, and {@code getPix} is throttled by it. Only
 * the addresses are the test's: the provider's, its host, and Redis (the build's, else a redis-server of its own).
 */
@SpringBootTest
class QuickStartTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  private static final String PIX_JSON = "{\"endToEndId\":\"" + E2E + "\",\"txid\":\"abcdefghijklmnopqrstuvwxyz1\","
      + "\"valor\":\"10.50\",\"horario\":\"2026-11-30T12:00:05.000Z\"}";
  private static final List<String> PATHS = new CopyOnWriteArrayList<>();
  private static final MockWebServer PROVIDER = provider();
  private static final String GIVEN_REDIS = System.getProperty("redis.url", "");
  private static final PrivateRedisServer OWN_REDIS = GIVEN_REDIS.isBlank() || GIVEN_REDIS.startsWith("$")
      ? PrivateRedisServer.start() : null;

  @Autowired
  private PixClient pix;

  @Autowired
  private Throttle throttle;

  private static MockWebServer provider() {
    MockWebServer server = new MockWebServer();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        String path = request.getUrl().encodedPath();
        PATHS.add(path);
        if (path.equals("/oauth/token")) {
          return json("{\"access_token\":\"t\",\"expires_in\":3600}");
        }
        return path.equals("/api/v2/pix/" + E2E) ? json(PIX_JSON) : new MockResponse.Builder().code(404).build();
      }
    });
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return server;
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json").body(body).build();
  }

  @DynamicPropertySource
  static void addresses(DynamicPropertyRegistry registry) {
    registry.add("BACEN_CLIENT_ID", () -> "demo");
    registry.add("BACEN_CLIENT_SECRET", () -> "demo-secret");
    registry.add("pixquota.provider.base-url", () -> PROVIDER.url("/api/v2/").toString());
    registry.add("pixquota.quotas.pix.host", PROVIDER::getHostName);
    registry.add("pixquota.redis.url", () -> OWN_REDIS != null ? OWN_REDIS.uri().toString() : GIVEN_REDIS);
    registry.add("pixquota.bucket.key-prefix", () -> "quick-start-" + System.nanoTime() + ":");
  }

  @AfterAll
  static void stop() {
    PROVIDER.close();
    if (OWN_REDIS != null) {
      OWN_REDIS.close();
    }
  }

  @Test
  void theReadmesYamlStartsAgainstAProviderWithoutAPolicyEndpointAndThrottlesGetPix() throws IOException {
    Matcher yaml = Pattern.compile("## Spring Boot\\n.*?```yaml\\n(.*?)```", Pattern.DOTALL)
        .matcher(Files.readString(Path.of(System.getProperty("readme"))));
    assertThat(yaml.find()).isTrue();
    assertThat(new String(getClass().getResourceAsStream("/application.yml").readAllBytes()))
        .as("application.yml is the README's YAML as it is").isEqualTo(yaml.group(1));

    assertThat(pix.getPix(E2E).endToEndId()).isEqualTo(E2E);
    assertThat(throttle.buckets()).singleElement().satisfies(bucket -> {
      assertThat(bucket.name()).isEqualTo("pix");
      Limit limit = bucket.limits().get(0);
      assertThat(limit.capacity()).as("10 - 9.95/s x J 100 ms").isCloseTo(9.005, within(1e-9));
      assertThat(limit.refillPerSecond()).isCloseTo(9.95, within(1e-9));
    });
    assertThat(PATHS).as("never asked for a policy").contains("/api/v2/pix/" + E2E)
        .allMatch(p -> p.equals("/oauth/token") || p.equals("/api/v2/pix/" + E2E));
  }
}
