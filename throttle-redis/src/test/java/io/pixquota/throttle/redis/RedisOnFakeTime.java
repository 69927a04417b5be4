package io.pixquota.throttle.redis;

import io.lettuce.core.RedisClient;
import io.pixquota.harness.RespConnection;
import io.pixquota.testing.FakeClockRedis;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.FakeTime;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * A private redis-server whose clock follows a {@link FakeTime}, with a Redisson client, a Lettuce client (made at
 * its first use) and an admin connection; everything closed together.
 */
final class RedisOnFakeTime implements AutoCloseable {
  final FakeClockRedis redis;
  final RedissonClient redisson;
  final RespConnection admin;
  private RedisClient lettuce;

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

  /** The store on the server's Lettuce client (one for this server, made at the first call). */
  synchronized LettuceStore lettuceStore() {
    if (lettuce == null) {
      lettuce = RedisClient.create(redis.uri().toString());
    }
    return LettuceStore.of(lettuce);
  }

  /** The store on the server's Redisson client. */
  RedissonStore redissonStore() {
    return RedissonStore.of(redisson);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (lettuce != null) {
        lettuce.shutdown();
      }
    }
    admin.close();
    redisson.shutdown();
    redis.close();
  }
}
