package io.pixquota.throttle.redis;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.BucketGroupContract;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The bucket group contract on Redis, a private server whose clock (and key expiry) follow the test's. */
class RedisBucketGroupContractTest extends BucketGroupContract {
  private static FakeTime TIME; // a new one for each class: the Lettuce subclass's server follows its own
  static RedisOnFakeTime redis;
  private static int run;

  @BeforeAll
  static void start() {
    TIME = FakeTime.manual(50_000);
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  /** The client the groups run on: Redisson here, Lettuce in the Lettuce subclass. */
  RedisStore store() {
    return redis.redissonStore();
  }

  @Override
  protected FakeTime time() {
    return TIME;
  }

  @Override
  protected BucketGroup group(String name) {
    return RedisBucketGroup.create(store(), name, "bgc" + (++run) + ":", Duration.ofSeconds(5));
  }
}
