package io.pixquota.throttle.redis;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.PermitPoolContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The permit pool contract on Redis, a private server whose clock (and key expiry) follow the test's. */
class RedisPermitPoolContractTest extends PermitPoolContract {
  private static FakeTime TIME; // a new one for each class: the Lettuce subclass's server follows its own
  static RedisOnFakeTime redis;
  private static int run;

  @BeforeAll
  static void start() {
    TIME = FakeTime.manual(80_000);
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  /** The client the pools run on: Redisson here, Lettuce in the Lettuce subclass. */
  RedisStore store() {
    return redis.redissonStore();
  }

  @Override
  protected FakeTime time() {
    return TIME;
  }

  @Override
  protected PermitPool pool(String name, int capacity, Duration lease) {
    return RedisPermitPool.create(store(), name, capacity, lease, "ppc" + (++run) + ":", TIME);
  }
}
