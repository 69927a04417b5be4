package io.pixquota.throttle.redis;

/** The bucket group contract on Redis, through Lettuce instead of Redisson. */
class LettuceBucketGroupContractTest extends RedisBucketGroupContractTest {
  @Override
  RedisStore store() {
    return redis.lettuceStore();
  }
}
