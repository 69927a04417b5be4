package io.pixquota.throttle.redis;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.support.TimeSource;
import org.redisson.api.RedissonClient;

/**
 * What tests of any module reach of the Redis bucket's package-private seams: a bucket whose answers are stamped on
 * the test's clock, and its fleet channel. Published in pixquota-redis's test jar.
 */
public final class RedisTesting {
  private RedisTesting() {}

  /**
   * The shared fixture of the adapters' tests: a Redis bucket of one limit under the test's key prefix, deciding on
   * {@code time} (client-clock mode) and stamping its answers with it.
   */
  public static RedisTokenBucket onFakeTime(RedissonClient redisson, String keyPrefix, String name, double capacity,
      double rate, FakeTime time) {
    return create(redisson, TokenBucketConfig.custom(name).keyPrefix(keyPrefix).clientClock(time.clock())
        .limit(capacity, rate).build(), time);
  }

  /** {@link RedisTokenBucket#create(RedissonClient, TokenBucketConfig)}, its answers stamped on {@code time}. */
  public static RedisTokenBucket create(RedissonClient redisson, TokenBucketConfig config, TimeSource time) {
    return RedisTokenBucket.create(RedissonStore.of(redisson), config, time);
  }
}
