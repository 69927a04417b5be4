package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.redis.RedissonStore;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Every condition of the auto-configuration, each in its own context, against a real Redis and, for the PixClient,
 * the mock BACEN.
 */
@ExtendWith(RedisExtension.class)
class PixQuotaAutoConfigurationTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  private TestRedis redis;
  private ApplicationContextRunner runner;

  @BeforeEach
  void setUp(TestRedis redis) {
    this.redis = redis;
    this.runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class))
        .withPropertyValues("pixquota.bucket.key-prefix=" + redis.keyPrefix());
  }

  @AfterEach
  void tearDown() {
    redis.close();
  }

  private String redisUrl() {
    return "pixquota.redis.url=" + redis.uri();
  }

  @Test
  void withoutAnyRedisTheStartFailsNamingTheProperty() {
    runner.run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("pixquota.redis.url")
          .hasMessageContaining("define a RedissonClient bean");
    });
  }

  @Test
  void aRedisUrlGivesTheBucketAndTheInterceptorsButNoPixClientWithoutABaseUrl() {
    runner.withPropertyValues(redisUrl(), "pixquota.bucket.name=url-only").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(RedisTokenBucket.class)
          .hasSingleBean(Throttle.class).hasSingleBean(ThrottlingInterceptor.class)
          .hasSingleBean(ThrottlingClientHttpRequestInterceptor.class)
          .doesNotHaveBean(PixClient.class);
      TokenBucket bucket = context.getBean(TokenBucket.class);
      assertThat(bucket.name()).isEqualTo("url-only");
      assertThat(bucket.limits()).containsExactly(Limit.of(PixClientConfig.DEFAULT_BUCKET_CAPACITY,
          PixClientConfig.DEFAULT_BUCKET_RATE));
      Acquisition a = bucket.acquire(1, Duration.ZERO);
      assertThat(a.granted()).isTrue();
      assertThat(a.remaining()).isEqualTo(PixClientConfig.DEFAULT_BUCKET_CAPACITY - 1);
      RedissonClient owned = context.getBean(PixQuotaRedis.class).<RedissonClient>client();
      context.close();
      assertThat(owned.isShutdown()).as("the client it made from the URL is shut down with the context").isTrue();
    });
  }

  @Test
  void theApplicationsRedissonClientIsUsedAndLeftOpen() {
    RedissonClient app = redis.newRedisson();
    runner.withBean(RedissonClient.class, () -> app).withPropertyValues("pixquota.bucket.name=app-redisson",
        "pixquota.bucket.capacity=3", "pixquota.bucket.rate=1").run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(PixQuotaRedis.class).<RedissonClient>client()).isSameAs(app);
          TokenBucket bucket = context.getBean(TokenBucket.class);
          assertThat(bucket.limits()).containsExactly(Limit.of(3, 1));
          assertThat(bucket.acquire(3, Duration.ZERO).granted()).isTrue();
          assertThat(app.getKeys().countExists(redis.keyPrefix() + "{app-redisson}:tb"))
              .as("the bucket lives in the application's Redis").isEqualTo(1);
          context.close();
          assertThat(app.isShutdown()).as("the application's client is the application's to close").isFalse();
        });
  }

  @Test
  void aBucketOfTheApplicationsOwnIsUsedAndNoRedisIsNeeded() {
    RedisTokenBucket mine = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
        TokenBucketConfig.custom("mine")
        .keyPrefix(redis.keyPrefix()).limit(10, 10).limit(600, 9).build());
    runner.withBean(TokenBucket.class, () -> mine).run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(PixQuotaRedis.class).hasSingleBean(TokenBucket.class);
      assertThat(context.getBean(ThrottlingInterceptor.class).buckets()).containsExactly(mine);
    });
  }

  /** The application's own Throttle: the OkHttp interceptor, the RestClient's and the actuator all go through it. */
  @Test
  void aThrottleOfTheApplicationsOwnIsTheOneEveryAdapterUses() {
    RedisTokenBucket mine = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
        TokenBucketConfig.custom("own")
        .keyPrefix(redis.keyPrefix()).limit(4, 0.01).build());
    Throttle own = Throttle.builder(mine).maxWait(Duration.ofSeconds(2)).build();
    runner.withBean(Throttle.class, () -> own).withPropertyValues(redisUrl()).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(Throttle.class);
      assertThat(context.getBean(Throttle.class)).isSameAs(own);
      assertThat(context.getBean(ThrottlingInterceptor.class).throttle()).isSameAs(own);
    });
  }

  @Test
  void anInterceptorOfTheApplicationsOwnIsTheOnePixClientUses() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      RedisTokenBucket mine = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
          TokenBucketConfig.custom("own-throttle")
          .keyPrefix(redis.keyPrefix()).limit(4, 0.01).build());
      ThrottlingInterceptor own = ThrottlingInterceptor.of(Throttle.builder(mine).maxWait(Duration.ofSeconds(2))
          .build());
      runner.withBean(ThrottlingInterceptor.class, () -> own).withPropertyValues(redisUrl(),
          "pixquota.provider.base-url=" + mock.pixUrl(), "pixquota.provider.client-id=demo",
          "pixquota.provider.client-secret=demo-secret").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ThrottlingInterceptor.class)).isSameAs(own);
            assertThat(context.getBean(PixClient.class).getPix(E2E).endToEndId()).isEqualTo(E2E);
            assertThat(mine.acquire(1, Duration.ZERO).remaining()).as("the call took its token from own's bucket")
                .isCloseTo(2, org.assertj.core.data.Offset.offset(0.01));
          });
    }
  }

  @Test
  void aPixClientOfTheApplicationsOwnIsLeftAsItIs() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults());
        PixClient mine = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
            .credentials("demo", "demo-secret").build()).redisson(redis.newRedisson()).build()) {
      runner.withBean(PixClient.class, () -> mine).withPropertyValues(redisUrl(),
          "pixquota.provider.base-url=" + mock.pixUrl(), "pixquota.provider.client-id=demo",
          "pixquota.provider.client-secret=demo-secret").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(PixClient.class)).isSameAs(mine);
          });
    }
  }

  @Test
  void disabledMakesNothing() {
    runner.withPropertyValues("pixquota.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(TokenBucket.class)
          .doesNotHaveBean(Throttle.class).doesNotHaveBean(ThrottlingInterceptor.class)
          .doesNotHaveBean(PixQuotaSettings.class);
    });
  }

  /** The application's registry. */
  @Configuration(proxyBeanMethods = false)
  static class Metrics {
    @Bean
    MeterRegistry meterRegistry() {
      return new SimpleMeterRegistry();
    }
  }

  @Test
  void aPixClientPlannedFromTheProvidersPolicyCallsTheMockAndMetersGoToTheApplicationsRegistry() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      runner.withUserConfiguration(Metrics.class).withPropertyValues(redisUrl(), "pixquota.bucket.name=planned",
          "pixquota.bucket.plan-from-policy=pix", "pixquota.bucket.plan-jitter=50ms",
          "pixquota.provider.base-url=" + mock.pixUrl(), "pixquota.provider.client-id=demo",
          "pixquota.provider.client-secret=demo-secret", "pixquota.default-priority=BATCH").run(context -> {
            assertThat(context).hasNotFailed();
            QuotaPlan plan = context.getBean(QuotaPlan.class);
            TokenBucket bucket = context.getBean(TokenBucket.class);
            assertThat(bucket.limits()).containsExactly(Limit.of(plan.capacity(), plan.ratePerSecond()));
            assertThat(plan.ratePerSecond()).as("under the mock's 10/s").isLessThan(10).isGreaterThan(9);
            Pix pix = context.getBean(PixClient.class).getPix(E2E);
            assertThat(pix.endToEndId()).isEqualTo(E2E);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("bacen.throttle.wait").tag("bucket", "planned").tag("priority", "batch")
                .timer().count()).as("the default class from pixquota.default-priority").isEqualTo(1);
            assertThat(registry.get("bacen.client.answers").tag("status", "200").counter().count()).isEqualTo(1);
          });
    }
  }

  @Test
  void theMetadataDescribesEveryProperty() throws Exception {
    String json = new String(getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")
        .readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    for (String property : new String[] {"pixquota.provider.base-url", "pixquota.provider.client-secret",
        "pixquota.provider.ssl-bundle", "pixquota.bucket.plan-from-policy", "pixquota.bucket.capacity",
        "pixquota.max-wait", "pixquota.redis.url", "pixquota.redis-unavailable.policy"}) {
      assertThat(json).contains("\"name\": \"" + property + "\"");
    }
    assertThat(json).as("descriptions come from the properties' javadoc").contains("Where API Pix is served");
  }
}
