package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.Limit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.yaml.snakeyaml.Yaml;

/**
 * The README's Spring Boot quick start, its YAML read from the README as it is, against a provider that serves only
 * {@code /oauth/token} and {@code /pix/{e2eid}} (404 for anything else, a policies endpoint included, as API Pix):
 * the start succeeds without asking the provider for a policy, the quota's bucket is the planner's from the declared
 * quota, and {@code getPix} goes through it. Only the addresses are pointed at the test's own provider and Redis.
 */
@ExtendWith(RedisExtension.class)
class ReadmeQuickStartTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  private static final String PIX_JSON = "{\"endToEndId\":\"" + E2E + "\",\"txid\":\"abcdefghijklmnopqrstuvwxyz1\","
      + "\"valor\":\"10.50\",\"horario\":\"2026-11-30T12:00:05.000Z\"}";
  private static final Pattern SPRING_YAML = Pattern.compile(
      "<!-- snippet: consumer-check/src/it/quick-start/src/main/resources/application.yml -->\\n```yaml\\n(.*?)```",
      Pattern.DOTALL);

  private final MockWebServer server = new MockWebServer();
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        String path = request.getUrl().encodedPath();
        paths.add(path);
        if (path.equals("/oauth/token")) {
          return json("{\"access_token\":\"t\",\"expires_in\":3600}");
        }
        return path.equals("/api/v2/pix/" + E2E) ? json(PIX_JSON) : new MockResponse.Builder().code(404).build();
      }
    });
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json").body(body).build();
  }

  @Test
  void theReadmesYamlStartsWithoutAPolicyEndpointAndThrottlesGetPixOnThePlannersBucket() throws IOException {
    Map<String, Object> yaml = new Yaml().load(readmeYaml());
    List<String> properties = new ArrayList<>();
    flatten("", yaml, properties);
    assertThat(properties).as("the quick start declares the provider's quota on a named quota, no policy endpoint")
        .contains("pixquota.quotas.pix.provider-quota=10 + 10/s").noneMatch(p -> p.contains("plan-from-policy"));
    properties.add("BACEN_CLIENT_ID=demo");
    properties.add("BACEN_CLIENT_SECRET=demo-secret");
    properties.add("pixquota.provider.base-url=" + server.url("/api/v2/")); // the addresses: the test's own
    properties.add("pixquota.quotas.pix.host=" + server.getHostName());
    properties.add("pixquota.redis.url=" + redis.uri());
    properties.add("pixquota.bucket.key-prefix=" + redis.keyPrefix());
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class))
        .withPropertyValues(properties.toArray(String[]::new)).run(context -> {
          assertThat(context).hasNotFailed();
          Throttle throttle = context.getBean(Throttle.class);
          assertThat(throttle.buckets()).singleElement().satisfies(bucket -> {
            assertThat(bucket.name()).isEqualTo("pix");
            Limit limit = bucket.limits().get(0);
            assertThat(limit.capacity()).as("10 - 9.95/s x J 100 ms").isCloseTo(9.005, within(1e-9));
            assertThat(limit.refillPerSecond()).as("10/s less the planner's 0.5%").isCloseTo(9.95, within(1e-9));
          });
          assertThat(context.getBean(PixClient.class).getPix(E2E).endToEndId()).isEqualTo(E2E);
          assertThat(paths).as("never asked for a policy").containsExactly("/oauth/token", "/api/v2/pix/" + E2E);
        });
  }

  /** The README's quick start YAML: the block that names consumer-check's quick-start application.yml. */
  static String readmeYaml() throws IOException {
    Path readme = Path.of("..", "README.md");
    Matcher m = SPRING_YAML.matcher(Files.readString(readme));
    assertThat(m.find()).as("the quick start's yaml block in " + readme.toAbsolutePath()).isTrue();
    return m.group(1);
  }

  @SuppressWarnings("unchecked")
  private static void flatten(String prefix, Map<String, Object> map, List<String> out) {
    for (Map.Entry<String, Object> e : map.entrySet()) {
      String key = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
      if (e.getValue() instanceof Map<?, ?> nested) {
        flatten(key, (Map<String, Object>) nested, out);
      } else {
        out.add(key + "=" + e.getValue());
      }
    }
  }
}
