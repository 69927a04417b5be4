package io.pixquota.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.testing.TestRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.WebClient;

/** What the WebClient tests share: the starter's context on a test's Redis, and a bearer token of the mock's. */
final class WebClientTesting {
  private WebClientTesting() {}

  /** The starter's auto-configuration, WebClient's included, with its bucket under the test's key prefix. */
  static ApplicationContextRunner runner(TestRedis redis, String bucket, String... more) {
    return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class,
        PixQuotaWebClientAutoConfiguration.class)).withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("pixquota.redis.url=" + redis.uri(), "pixquota.bucket.key-prefix=" + redis.keyPrefix(),
            "pixquota.bucket.name=" + bucket).withPropertyValues(more);
  }

  /** A bearer token of the mock's demo integrator. */
  static String bearer(MockBacen mock) {
    String basic = Base64.getEncoder().encodeToString("demo:demo-secret".getBytes(StandardCharsets.UTF_8));
    Map<?, ?> token = WebClient.create(mock.url().toString()).post().uri("/oauth/token")
        .header("Authorization", "Basic " + basic).header("Content-Type", "application/x-www-form-urlencoded")
        .bodyValue("grant_type=client_credentials").retrieve().bodyToMono(Map.class).block(Duration.ofSeconds(10));
    return (String) token.get("access_token");
  }
}
