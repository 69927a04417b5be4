package io.pixquota.throttle.redis;

import io.pixquota.testing.FakeClockRedis;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.TokenBucketContract;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract for the Redis bucket in its default mode, Redis's own {@code TIME}: a private redis-server whose wall
 * clock follows the test's ({@link FakeClockRedis}). Setting the clock back is a failover to a node that is behind.
 */
class RedisTokenBucketOnRedisClockTest extends TokenBucketContract {
  RedisOnFakeTime redis;

  @BeforeEach
  void start() {
    redis = new RedisOnFakeTime(time);
  }

  @AfterEach
  void stop() {
    redis.close();
  }

  /** The client the buckets run on: Redisson here, Lettuce in {@link LettuceTokenBucketOnRedisClockTest}. */
  RedisStore store() {
    return redis.redissonStore();
  }

  @Override
  protected boolean clockIsTheStores() {
    return true;
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits) {
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name);
    limits.forEach(config::limit);
    return RedisTokenBucket.create(store(), config.build(), time);
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits, java.util.Map<String, Double> shares) {
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name);
    limits.forEach(config::limit);
    config.shares(shares);
    return RedisTokenBucket.create(store(), config.build(), time);
  }
}
