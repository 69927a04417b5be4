package io.pixquota.throttle.redis;

/** The permit pool contract on Redis, through Lettuce instead of Redisson. */
class LettucePermitPoolContractTest extends RedisPermitPoolContractTest {
  @Override
  RedisStore store() {
    return redis.lettuceStore();
  }
}
