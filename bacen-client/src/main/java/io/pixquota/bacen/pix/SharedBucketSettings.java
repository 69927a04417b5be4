package io.pixquota.bacen.pix;

import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * The shared bucket every replica books on, and its Redis: a part of {@link PixClientConfig}.
 *
 * @param name               the bucket's name; every replica of one integrator uses the same
 * @param capacity           its burst
 * @param ratePerSecond      its refill per second
 * @param redisUrl           where it lives, when the client creates its own Redisson; null otherwise
 * @param redisTimeout       how long to wait for Redis's answer
 * @param configurationLease how long a configuration of the bucket keeps counting after its last use
 * @param adaptation         how its rate follows the provider's 429s; null when it keeps the configured rate
 * @param whenUnavailable    what to do while Redis is unavailable
 * @param localShare         the share of the quota this process uses under
 *                           {@link RedisUnavailablePolicy#LOCAL_FALLBACK}
 */
public record SharedBucketSettings(String name, double capacity, double ratePerSecond, String redisUrl,
    Duration redisTimeout, Duration configurationLease, RateAdaptation adaptation,
    RedisUnavailablePolicy whenUnavailable, double localShare) {
  /** How the rate follows the provider's 429s; empty when it keeps the configured rate. */
  public Optional<RateAdaptation> rateAdaptation() {
    return Optional.ofNullable(adaptation);
  }

  /** The bucket's Redis settings with this capacity and rate (a plan's, or the configured ones). */
  TokenBucketConfig bucketConfig(double withCapacity, double withRate) {
    return TokenBucketConfig.custom(name).limit(withCapacity, withRate).redisTimeout(redisTimeout)
        .configurationLease(configurationLease).rateAdaptation(adaptation).build();
  }

  /** Never shows Redis's password. */
  @Override
  public String toString() {
    return "redis=" + (redisUrl == null ? "none" : RedisAddress.parse(redisUrl)) + ", bucket=" + name + " ("
        + capacity + ", " + ratePerSecond + "/s), redisUnavailable=" + whenUnavailable + ", configurationLease="
        + configurationLease + ", rateAdaptation=" + (adaptation == null ? "off" : adaptation);
  }
}
