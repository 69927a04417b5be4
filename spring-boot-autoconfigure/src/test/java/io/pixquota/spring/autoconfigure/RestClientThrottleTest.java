package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.store.TokenBucket;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;

/**
 * The auto-configured {@link ThrottlingClientHttpRequestInterceptor} on Spring's RestClient and RestTemplate,
 * against a real HTTP server and a real Redis: slots, classes, 429s and refusals as with OkHttp.
 */
@ExtendWith(RedisExtension.class)
class RestClientThrottleTest {
  private final MockWebServer server = new MockWebServer();
  private final List<Long> arrivals = new CopyOnWriteArrayList<>();
  private volatile int status = 200;
  /** Whether a 429 carries the provider's quota signal, as BACEN's own 429s do (a gateway's do not). */
  private volatile boolean signalled = true;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        arrivals.add(System.nanoTime());
        if (status != 429) {
          return new MockResponse.Builder().code(status).body("ok").build();
        }
        MockResponse.Builder refusal = new MockResponse.Builder().code(429).addHeader("Retry-After", "1");
        return (signalled ? refusal.addHeader("RateLimit", "\"pix\";r=0;t=1") : refusal).build();
      }
    });
    server.start();
    runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class))
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("pixquota.redis.url=" + redis.uri(), "pixquota.bucket.key-prefix=" + redis.keyPrefix());
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private RestClient client(ThrottlingClientHttpRequestInterceptor throttle) {
    return RestClient.builder().baseUrl(server.url("/").toString()).requestInterceptor(throttle).build();
  }

  @Test
  void eachRequestLeavesAtItsSlot() {
    runner.withPropertyValues("pixquota.bucket.name=rest-slots", "pixquota.bucket.capacity=2",
        "pixquota.bucket.rate=10").run(context -> {
          RestClient rest = client(context.getBean(ThrottlingClientHttpRequestInterceptor.class));
          rest.get().uri("/warm").retrieve().toBodilessEntity(); // a connection, and the script loaded
          arrivals.clear();
          context.getBean(TokenBucket.class).refund(2); // full again: 2 tokens
          long t0 = System.nanoTime();
          for (int i = 0; i < 4; i++) {
            assertThat(rest.get().uri("/api/v2/pix/{id}", "x").retrieve().body(String.class)).isEqualTo("ok");
          }
          // Slots at 0, 0, 100 and 200 ms after the first booking, which came after t0: the fourth request cannot
          // arrive sooner than 200 ms after t0 (5 ms for Redis's and this JVM's clocks measuring one interval).
          assertThat(TimeUnit.NANOSECONDS.toMillis(arrivals.get(3) - t0)).as("a burst of 2, then one per 100 ms")
              .isBetween(195L, 2_000L);
          assertThat(TimeUnit.NANOSECONDS.toMillis(arrivals.get(2) - t0)).as("the third at its slot, not sooner")
              .isGreaterThanOrEqualTo(95L);
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.get("bacen.throttle.wait").tag("bucket", "rest-slots").timer().count()).isEqualTo(5);
        });
  }

  @Test
  void aBatchRequestAttributeDefersInsteadOfBookingAhead() {
    runner.withPropertyValues("pixquota.bucket.name=rest-batch", "pixquota.bucket.capacity=1",
        "pixquota.bucket.rate=10").run(context -> {
          RestClient rest = client(context.getBean(ThrottlingClientHttpRequestInterceptor.class));
          for (int i = 0; i < 2; i++) {
            rest.get().uri("/a").attribute(ThrottlingClientHttpRequestInterceptor.PRIORITY, Priority.BATCH)
                .retrieve().toBodilessEntity();
          }
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count())
              .isEqualTo(1);
          assertThatThrownBy(() -> rest.get().uri("/a").attribute(ThrottlingClientHttpRequestInterceptor.PRIORITY,
              "BATCH").retrieve().toBodilessEntity()).isInstanceOf(IllegalArgumentException.class)
              .hasMessageContaining("must be a Priority");
        });
  }

  @Test
  void aProvider429IsToldToTheBucket() {
    status = 429;
    runner.withPropertyValues("pixquota.bucket.name=rest-429").run(context -> {
      RestClient rest = client(context.getBean(ThrottlingClientHttpRequestInterceptor.class));
      assertThatThrownBy(() -> rest.get().uri("/a").retrieve().toBodilessEntity())
          .isInstanceOf(HttpClientErrorException.TooManyRequests.class);
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.get("bacen.throttle.provider.refused").tag("bucket", "rest-429").counter().count())
          .isEqualTo(1);
      assertThat(registry.get("bacen.throttle.rate.cuts").tag("bucket", "rest-429").counter().count()).isEqualTo(1);
    });
  }

  /** The starter's default quota signal is RateLimit: a 429 without it (a gateway's) is counted, and cuts nothing. */
  @Test
  void a429WithoutTheProvidersSignalIsCountedAndCutsNothing() {
    status = 429;
    signalled = false;
    runner.withPropertyValues("pixquota.bucket.name=rest-gateway-429").run(context -> {
      RestClient rest = client(context.getBean(ThrottlingClientHttpRequestInterceptor.class));
      assertThatThrownBy(() -> rest.get().uri("/a").retrieve().toBodilessEntity())
          .isInstanceOf(HttpClientErrorException.TooManyRequests.class);
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.get("bacen.throttle.provider.ignored").tag("bucket", "rest-gateway-429")
          .tag("reason", "no-signal").counter().count()).isEqualTo(1);
      assertThat(registry.get("bacen.throttle.rate.cuts").tag("bucket", "rest-gateway-429").counter().count())
          .isZero();
    });
  }

  @Test
  void restTemplateTakesTheSameInterceptor() {
    runner.withPropertyValues("pixquota.bucket.name=rest-template", "pixquota.bucket.capacity=1",
        "pixquota.bucket.rate=0.01", "pixquota.max-wait=0s").run(context -> {
          RestTemplate template = new RestTemplate();
          template.getInterceptors().add(context.getBean(ThrottlingClientHttpRequestInterceptor.class));
          assertThat(template.getForObject(server.url("/a").uri(), String.class)).isEqualTo("ok");
          assertThatThrownBy(() -> template.getForObject(server.url("/a").uri(), String.class))
              .isInstanceOf(ResourceAccessException.class).hasCauseInstanceOf(ThrottleRefusedException.class);
          assertThat(arrivals).hasSize(1);
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          assertThat(registry.get("bacen.throttle.permits").tag("bucket", "rest-template").tag("result", "refused")
              .counter().count()).isEqualTo(1);
        });
  }

  @Test
  void aSlotPastTheMaxWaitIsRefusedAndNothingIsSent() {
    runner.withPropertyValues("pixquota.bucket.name=rest-refused", "pixquota.bucket.capacity=1",
        "pixquota.bucket.rate=0.01", "pixquota.max-wait=0s").run(context -> {
          RestClient rest = client(context.getBean(ThrottlingClientHttpRequestInterceptor.class));
          rest.get().uri("/a").retrieve().toBodilessEntity();
          assertThatThrownBy(() -> rest.get().uri("/a").retrieve().toBodilessEntity())
              .isInstanceOf(ResourceAccessException.class).hasCauseInstanceOf(ThrottleRefusedException.class);
          assertThat(arrivals).hasSize(1);
        });
  }
}
