package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.ReactivePixClient;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.web.reactive.function.client.WebClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

/**
 * A reactive web application with a provider gets a {@link ReactivePixClient} on Boot's {@code WebClient.Builder}
 * (whose customizer already added the throttle: each call waits once) and no OkHttp {@link PixClient}; any other
 * application gets the PixClient as before.
 */
@ExtendWith(RedisExtension.class)
class ReactivePixClientConfigurationTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  @Test
  void aReactiveApplicationGetsTheReactiveClientAndOthersThePixClient(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      String[] properties = {"pixquota.redis.url=" + redis.uri(), "pixquota.bucket.key-prefix=" + redis.keyPrefix(),
          "pixquota.bucket.name=reactive", "pixquota.provider.base-url=" + mock.pixUrl(),
          "pixquota.provider.client-id=demo", "pixquota.provider.client-secret=demo-secret"};
      AutoConfigurations starter = AutoConfigurations.of(WebClientAutoConfiguration.class,
          PixQuotaAutoConfiguration.class, PixQuotaWebClientAutoConfiguration.class);
      new ReactiveWebApplicationContextRunner().withConfiguration(starter)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new).withPropertyValues(properties).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ReactivePixClient.class).doesNotHaveBean(PixClient.class);
            assertThat(context.getBean(ReactivePixClient.class).getPix(E2E).block(Duration.ofSeconds(10))
                .endToEndId()).isEqualTo(E2E);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("bacen.throttle.wait").timers().stream().mapToLong(Timer::count).sum())
                .as("one wait for one call: one throttle filter, not the customizer's and the client's").isEqualTo(1);
            assertThat(registry.get("bacen.client.requests").tag("operation", "getPix").tag("outcome", "success")
                .timer().count()).isEqualTo(1);
          });
      new ApplicationContextRunner().withConfiguration(starter).withPropertyValues(properties).run(context ->
          assertThat(context).hasNotFailed().hasSingleBean(PixClient.class).doesNotHaveBean(ReactivePixClient.class));
    }
  }

  /** Named quotas that take none of its requests (another host): the reactive client fails the start too. */
  @Test
  void aReactiveClientWhoseRequestsNoQuotaTakesFailsTheStart(TestRedis redis) {
    AutoConfigurations starter = AutoConfigurations.of(WebClientAutoConfiguration.class,
        PixQuotaAutoConfiguration.class, PixQuotaWebClientAutoConfiguration.class);
    String[] properties = {"pixquota.redis.url=" + redis.uri(), "pixquota.bucket.key-prefix=" + redis.keyPrefix(),
        "pixquota.provider.base-url=http://127.0.0.1:1/api/v2/", "pixquota.provider.client-id=demo",
        "pixquota.provider.client-secret=demo-secret", "pixquota.quotas.pix.host=pix.example.com",
        "pixquota.quotas.pix.capacity=8", "pixquota.quotas.pix.refill-per-second=9"};
    new ReactiveWebApplicationContextRunner().withConfiguration(starter)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new).withPropertyValues(properties).run(context ->
            assertThat(context).getFailure().rootCause().hasMessageContaining("pixquota.provider.base-url")
                .hasMessageContaining("ReactivePixClient's requests (GET 127.0.0.1/api/v2/pix/")
                .hasMessageContaining("quota 'pix': pix.example.com"));
  }
}
