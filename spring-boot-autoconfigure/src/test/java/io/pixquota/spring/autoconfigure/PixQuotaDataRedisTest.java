package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.AbstractRedisClient;
import io.pixquota.harness.RespConnection;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.redis.LettuceStore;
import io.pixquota.throttle.store.TokenBucket;
import java.lang.reflect.Proxy;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An application that configures Redis for Spring Data Redis alone ({@code spring.data.redis.*}): the shared bucket
 * runs on its Lettuce client, which stays the application's; a connection factory of another client fails the start.
 */
@ExtendWith(RedisExtension.class)
class PixQuotaDataRedisTest {
  private ApplicationContextRunner runner;
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) {
    this.redis = redis;
    this.runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class, PixQuotaAutoConfiguration.class))
        .withPropertyValues("pixquota.bucket.key-prefix=" + redis.keyPrefix());
  }

  @Test
  void theBucketRunsOnTheLettuceClientOfSpringDataRedis() {
    runner.withPropertyValues("spring.data.redis.url=" + redis.uri(), "pixquota.bucket.name=data-redis",
        "pixquota.bucket.capacity=3", "pixquota.bucket.rate=1").run(context -> {
          assertThat(context).hasNotFailed();
          PixQuotaRedis chosen = context.getBean(PixQuotaRedis.class);
          assertThat(chosen.store()).isInstanceOf(LettuceStore.class);
          AbstractRedisClient client = chosen.client();
          assertThat(client).isSameAs(context.getBean(LettuceConnectionFactory.class).getNativeClient());
          TokenBucket bucket = context.getBean(TokenBucket.class);
          assertThat(bucket.acquire(3, Duration.ZERO).granted()).isTrue();
          assertThat(bucket.acquire(1, Duration.ZERO).granted()).as("3 at most").isFalse();
          try (RespConnection admin = redis.rawConnection()) {
            assertThat(admin.call("EXISTS", redis.keyPrefix() + "{data-redis}:tb"))
                .as("the bucket lives in Spring Data Redis's Redis").isEqualTo(1L);
          }
        });
  }

  @Test
  void pixquotaRedisUrlComesBeforeSpringDataRedis() {
    runner.withPropertyValues("spring.data.redis.url=redis://127.0.0.1:1", "pixquota.redis.url=" + redis.uri(),
        "pixquota.bucket.name=url-first").run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(TokenBucket.class).acquire(1, Duration.ZERO).granted()).isTrue();
        });
  }

  @Test
  void aConnectionFactoryOfAnotherClientFailsTheStartSayingWhatToDo() {
    RedisConnectionFactory jedisLike = (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {RedisConnectionFactory.class}, (proxy, method, args) -> {
          throw new UnsupportedOperationException(method.getName());
        });
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class))
        .withBean(RedisConnectionFactory.class, () -> jedisLike).run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("Lettuce or Redisson")
              .hasMessageContaining("pixquota.redis.url").hasMessageContaining("RedissonClient bean");
        });
  }
}
