package io.pixquota.throttle.redis;

/** The token bucket contract on Redis's own clock, through Lettuce instead of Redisson. */
class LettuceTokenBucketOnRedisClockTest extends RedisTokenBucketOnRedisClockTest {
  @Override
  RedisStore store() {
    return redis.lettuceStore();
  }
}
