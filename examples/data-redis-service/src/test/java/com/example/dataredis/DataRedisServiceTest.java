package com.example.dataredis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service as it runs, Redis configured for Spring Data Redis only: a burst through its endpoint, each a PixClient
 * call to the mock BACEN (10 + 10/s) through the quota's bucket, which lives in Spring Data Redis's Redis and runs on
 * its Lettuce client. Redisson is not on the class path.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class DataRedisServiceTest {
  private static final int BURST = 20;
  private static final String KEYS = "data-redis-" + System.nanoTime() + ":";
  private static final MockBacen MOCK = start();
  private static final PrivateRedisServer REDIS = PrivateRedisServer.start();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Value("${local.server.port}")
  private int port;

  private static MockBacen start() {
    try {
      return MockBacen.start(MockConfig.defaults());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> REDIS.uri().toString());
    registry.add("pixquota.provider.base-url", () -> MOCK.pixUrl().toString());
    registry.add("pixquota.quotas.pix.host", () -> MOCK.pixUrl().getHost());
    registry.add("pixquota.bucket.key-prefix", () -> KEYS);
  }

  @AfterAll
  static void stop() {
    MOCK.close();
    REDIS.close();
  }

  @Autowired
  private ApplicationContext context;

  @Test
  void theQuotaRunsOnSpringDataRedissLettuceClientWithoutRedissonOnTheClassPath() {
    assertThat(context.getBeanNamesForType(LettuceConnectionFactory.class)).hasSize(1);
    assertThatThrownBy(() -> Class.forName("org.redisson.api.RedissonClient", false, context.getClassLoader()))
        .as("Redisson is not on the class path: the service pulls one Redis client, Lettuce")
        .isInstanceOf(ClassNotFoundException.class);
    assertThat(context.getEnvironment().getProperty("pixquota.redis.url")).as("configured for Spring Data Redis only")
        .isNull();
  }

  @Test
  void aBurstIsServedThroughTheQuotaInSpringDataRedissRedis() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> burst = new ArrayList<>();
    for (int i = 0; i < BURST; i++) {
      String e2e = String.format("E12345678202611301200ABCDEF%05d", i);
      burst.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/pix/" + e2e))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()));
    }
    for (CompletableFuture<HttpResponse<String>> f : burst) {
      HttpResponse<String> r = f.join();
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
    Map<String, Object> stats = MOCK.stats("demo", false);
    assertThat(((Number) stats.get("accepted")).longValue()).isEqualTo(BURST);
    // a burst of 20 planned within 10 + 10/s: the first 9 at once, the rest a slot each, no 429 on this machine's
    // jitter (a loaded machine may meet one: the plan leaves J = 100 ms)
    assertThat(((Number) stats.get("refused")).longValue()).as("the provider's own audit").isLessThanOrEqualTo(1);
    try (RespConnection admin = REDIS.rawConnection()) {
      assertThat(admin.call("EXISTS", KEYS + "{pix}:tb")).as("the quota's bucket, written through Lettuce")
          .isEqualTo(1L);
      assertThat(admin.call("GET", "data-redis-service:asked")).as("the service's own Spring Data Redis use")
          .isEqualTo(String.valueOf(BURST));
    }
  }
}
