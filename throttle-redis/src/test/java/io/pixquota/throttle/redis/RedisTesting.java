package io.pixquota.throttle.redis;

import io.pixquota.throttle.internal.TimeSource;
import org.redisson.api.RedissonClient;

/**
 * What tests of any module reach of the Redis bucket's package-private seams: a bucket whose answers are stamped on
 * the test's clock, and its fleet channel. Published in pixquota-redis's test jar.
 */
public final class RedisTesting {
  private RedisTesting() {}

  /** {@link RedisTokenBucket#create(RedissonClient, TokenBucketConfig)}, its answers stamped on {@code time}. */
  public static RedisTokenBucket create(RedissonClient redisson, TokenBucketConfig config, TimeSource time) {
    return RedisTokenBucket.create(redisson, config, time);
  }
}
