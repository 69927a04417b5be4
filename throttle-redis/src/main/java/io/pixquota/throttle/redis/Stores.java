package io.pixquota.throttle.redis;

import io.pixquota.throttle.redis.internal.ScriptClient;
import java.util.Objects;

/** The client behind a {@link RedisStore}, for this package's classes. */
final class Stores {
  private Stores() {}

  static ScriptClient scripts(RedisStore store) {
    Objects.requireNonNull(store, "store cannot be null");
    // loads RedissonStore, not Redisson: its methods name RedissonClient, which only a call of RedissonStore.of loads
    if (store instanceof RedissonStore r) {
      return r.scripts();
    }
    return ((LettuceStore) store).scripts();
  }
}
