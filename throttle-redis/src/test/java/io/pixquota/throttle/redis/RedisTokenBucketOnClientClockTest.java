package io.pixquota.throttle.redis;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.TokenBucketContract;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/** The contract for the Redis bucket in client-clock mode, on the shared test Redis (its TIME is ahead: no cap). */
@ExtendWith(RedisExtension.class)
class RedisTokenBucketOnClientClockTest extends TokenBucketContract {
  TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) {
    this.redis = redis;
  }

  /** The client of a new bucket: a new Redisson client here, a new Lettuce one in the Lettuce subclass. */
  RedisStore newStore() {
    return RedissonStore.of(redis.newRedisson());
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits) {
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).keyPrefix(redis.keyPrefix())
        .clientClock(time.clock());
    limits.forEach(config::limit);
    return RedisTokenBucket.create(newStore(), config.build(), time);
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits, java.util.Map<String, Double> shares) {
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).keyPrefix(redis.keyPrefix())
        .clientClock(time.clock());
    limits.forEach(config::limit);
    config.shares(shares);
    return RedisTokenBucket.create(newStore(), config.build(), time);
  }
}
