package io.pixquota.snippets;

import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.redis.RedisPermitPool;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.net.URI;
import java.time.Duration;
import org.redisson.api.RedissonClient;

/** A fleet-wide cap on calls in flight: beside the PixClient's bucket, alone, or beside a rate on a route. */
final class PermitPools {
  private PermitPools() {}

  static void pools(RedissonClient redisson, RedisTokenBucket bucket, URI baseUrl, String clientId, String secret) {
    // region pools
    PixClientConfig withCap = PixClientConfig.builder().baseUrl(baseUrl).credentials(clientId, secret)
        .redisUrl("redis://127.0.0.1:6379")
        .maxInFlight(6)                                             // a pool beside the bucket: BACEN_MAX_IN_FLIGHT=6
        .build();
    Duration lease = Duration.ofSeconds(45);                      // longer than max wait + provider timeout
    Throttle capOnly = Throttle.builder(bucket)
        .rule("POST", "/spi/.*", RedisPermitPool.create(RedissonStore.of(redisson), "spi", 6, lease)) // a cap, no rate
        .providerTimeout(Duration.ofSeconds(30))                  // required with a pool: see "Abandoned calls"
        .build();
    Throttle both = Throttle.builder(bucket)
        .rule(null, "/api/.*", bucket, 1, RedisPermitPool.beside(bucket, "api", 6, lease)) // a rate and a cap
        .providerTimeout(Duration.ofSeconds(30))
        .build();
    // endregion
  }
}
