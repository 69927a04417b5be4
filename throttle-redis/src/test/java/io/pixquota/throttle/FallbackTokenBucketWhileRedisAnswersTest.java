package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucketContract;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract for the LOCAL_FALLBACK decorator while Redis answers: it is the shared bucket, untouched. */
@ExtendWith(RedisExtension.class)
class FallbackTokenBucketWhileRedisAnswersTest extends TokenBucketContract {
  private TestRedis redis;
  private final RecordingListener listener = new RecordingListener();

  @BeforeEach
  void setUp(TestRedis redis) {
    this.redis = redis;
  }

  @AfterEach
  void neverFellBack() {
    assertThat(listener.events()).as("store errors and switches").isEmpty();
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits) {
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).keyPrefix(redis.keyPrefix())
        .clientClock(time.clock());
    limits.forEach(config::limit);
    return new FallbackTokenBucket(RedisTesting.create(redis.newRedisson(), config.build(), time), 0.5,
        Duration.ofSeconds(1), time, listener);
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits, java.util.Map<String, Double> shares) {
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).keyPrefix(redis.keyPrefix())
        .clientClock(time.clock());
    limits.forEach(config::limit);
    config.shares(shares);
    return new FallbackTokenBucket(RedisTesting.create(redis.newRedisson(), config.build(), time), 0.5,
        Duration.ofSeconds(1), time, listener);
  }
}
