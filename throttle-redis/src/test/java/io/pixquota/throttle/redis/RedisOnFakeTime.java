package io.pixquota.throttle.redis;

import io.pixquota.harness.RespConnection;
import io.pixquota.testing.FakeClockRedis;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.FakeTime;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * A private redis-server whose clock follows a {@link FakeTime}, with a Redisson client and an admin connection;
 * everything closed together.
 */
final class RedisOnFakeTime implements AutoCloseable {
  final FakeClockRedis redis;
  final RedissonClient redisson;
  final RespConnection admin;

  RedisOnFakeTime(FakeTime time) {
    redis = FakeClockRedis.start(time.micros());
    time.onChange(redis::setMicros);
    redisson = Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
    admin = redis.server().rawConnection();
  }

  /** Another client of the same server: another replica's. Shut it down yourself. */
  RedissonClient newRedisson() {
    return Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
  }

  @Override
  public void close() {
    admin.close();
    redisson.shutdown();
    redis.close();
  }
}
