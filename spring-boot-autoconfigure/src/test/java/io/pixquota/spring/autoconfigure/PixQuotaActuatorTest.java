package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The health indicator, the endpoint and the warm-up against a {@code redis-server} of the test's own, which starts
 * with no script cached and is killed to see the health go DOWN.
 */
class PixQuotaActuatorTest {
  private PrivateRedisServer server;
  private WebApplicationContextRunner runner;

  @BeforeEach
  void setUp() {
    server = PrivateRedisServer.start();
    runner = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class,
            PixQuotaActuatorAutoConfiguration.class))
        .withPropertyValues("pixquota.redis.url=" + server.uri(), "pixquota.redis.timeout=300ms",
            "pixquota.bucket.name=health", "management.endpoints.web.exposure.include=health,pixquota");
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> details(Health health, String bucket) {
    return (Map<String, Object>) health.getDetails().get(bucket);
  }

  @Test
  void warmUpOnReadyLoadsTheScriptAndTheHealthSaysSo() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(PixQuotaHealthIndicator.class)
          .hasSingleBean(PixQuotaEndpoint.class);
      PixQuotaHealthIndicator indicator = context.getBean(PixQuotaHealthIndicator.class);
      Health before = indicator.health();
      assertThat(before.getStatus()).isEqualTo(Status.UP);
      assertThat(details(before, "health")).containsEntry("scriptLoaded", false)
          .containsEntry("redisReachable", true).containsEntry("localFallbackActive", false)
          .containsEntry("marginExceededRecently", false);
      context.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0], context,
          Duration.ZERO));
      assertThat(details(indicator.health(), "health")).containsEntry("scriptLoaded", true);
    });
  }

  @Test
  void theEndpointShowsTokensBookedAheadAndConfigurations() {
    runner.withPropertyValues("pixquota.bucket.capacity=2", "pixquota.bucket.rate=0.01").run(context -> {
      RedisTokenBucket bucket = context.getBean(RedisTokenBucket.class);
      for (int i = 0; i < 5; i++) {
        assertThat(bucket.acquire(1, Duration.ofDays(1)).granted()).isTrue();
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> buckets = (Map<String, Object>) context.getBean(PixQuotaEndpoint.class).buckets()
          .get("buckets");
      @SuppressWarnings("unchecked")
      Map<String, Object> health = (Map<String, Object>) buckets.get("health");
      assertThat((double) health.get("tokens")).isBetween(-3.0, -2.9);
      assertThat((double) health.get("bookedAhead")).isBetween(2.9, 3.0);
      assertThat((long) health.get("nextSlotInMs")).as("4 tokens at 0.01/s").isBetween(399_000L, 400_000L);
      assertThat(health).containsEntry("configurations", List.of("2.0:0.01")).containsEntry("rateFactor", 1.0)
          .containsEntry("effectiveRatePerSecond", 0.01).containsEntry("stored", true);
    });
  }

  @Test
  void anOperatorClearsAStaleConfigurationAndTheHealthCountsTheRepair() {
    runner.run(context -> {
      RedisTokenBucket bucket = context.getBean(RedisTokenBucket.class);
      bucket.acquire(1, Duration.ZERO);
      try (RespConnection admin = server.rawConnection()) {
        List<?> time = (List<?>) admin.call("TIME");
        long now = Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
        admin.call("HSET", bucket.config().key(), "c:1.0:0.01", Long.toString(now + 86_400_000_000L));
      }
      bucket.acquire(1, Duration.ZERO);
      PixQuotaHealthIndicator indicator = context.getBean(PixQuotaHealthIndicator.class);
      assertThat(details(indicator.health(), "health")).containsEntry("stateRepairs", 1L)
          .containsEntry("providerHoldMs", 0L);
      PixQuotaEndpoint endpoint = context.getBean(PixQuotaEndpoint.class);
      assertThat(endpoint.clearConfiguration("health", "1.0:0.01")).containsEntry("cleared", true);
      assertThat(endpoint.clearConfiguration("health", "1.0:0.01")).containsEntry("cleared", false);
      assertThat(endpoint.clearConfiguration("other", "1.0:0.01")).containsEntry("error",
          "no shared bucket of that name");
      @SuppressWarnings("unchecked")
      Map<String, Object> state = (Map<String, Object>) ((Map<String, Object>) endpoint.buckets().get("buckets"))
          .get("health");
      assertThat(state.get("configurations")).isEqualTo(List.of("8.0:9.0"));
    });
  }

  @Test
  void redisGoneMakesTheHealthDownWithTheReason() {
    runner.run(context -> {
      PixQuotaHealthIndicator indicator = context.getBean(PixQuotaHealthIndicator.class);
      assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
      server.kill();
      Health down = indicator.health();
      assertThat(down.getStatus()).isEqualTo(Status.DOWN);
      assertThat(details(down, "health")).containsEntry("redisReachable", false)
          .hasEntrySatisfying("error", e -> assertThat((String) e).contains("health"));
    });
  }

  @Test
  void theHealthIndicatorCanBeSwitchedOff() {
    runner.withPropertyValues("management.health.pixquota.enabled=false").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(PixQuotaHealthIndicator.class)
            .hasSingleBean(PixQuotaEndpoint.class));
  }

  @Test
  void theEndpointIsMadeOnlyWhenExposed() {
    runner.withPropertyValues("management.endpoints.web.exposure.include=health").run(context ->
        assertThat(context).hasNotFailed().doesNotHaveBean(PixQuotaEndpoint.class)
            .hasSingleBean(PixQuotaHealthIndicator.class));
  }
}
