package io.pixquota.snippets;

import io.lettuce.core.RedisClient;
import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.throttle.redis.LettuceStore;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import io.pixquota.throttle.store.TokenBucket;

/** The shared bucket on the application's Lettuce client instead of Redisson. */
final class OnLettuce {
  private OnLettuce() {}

  static Pix pixClient(PixClientConfig config, String e2eid) {
    // region lettuce-store
    RedisClient lettuce = RedisClient.create("redis://redis.internal:6379"); // or a RedisClusterClient
    RedisStore store = LettuceStore.of(lettuce);
    try (PixClient pix = PixClient.builder(config).store(store).build()) {
      return pix.getPix(e2eid);
    } finally {
      lettuce.shutdown(); // the application's client: closing it is the application's
    }
    // endregion
  }

  static TokenBucket bucket(RedisStore store) {
    // region lettuce-bucket
    return RedisTokenBucket.create(store, TokenBucketConfig.of("pix", 8, 9)); // as with RedissonStore.of(redisson)
    // endregion
  }
}
