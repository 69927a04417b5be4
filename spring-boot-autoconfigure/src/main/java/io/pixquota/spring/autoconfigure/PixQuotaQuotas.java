package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.Match;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.redis.RedisPermitPool;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.UnlimitedBucket;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * {@code pixquota.quotas.<name>.*} made into the throttle's quotas, each over its base config: a Redis bucket named
 * after the quota for a rate, a fleet-wide pool for a cap on calls in flight (beside the bucket when it has both), and
 * the request's host, method and path it takes. A bad value stops the start naming the property.
 */
final class PixQuotaQuotas {
  private PixQuotaQuotas() {}

  /** Adds every quota to {@code throttle}; the longest provider timeout of the quotas with a cap is the throttle's. */
  /** @param redis null when the application gave its own bucket (no Redis of the starter's) */
  static void add(ThrottleBuilder throttle, PixQuotaSettings settings, PixQuotaRedis redis) {
    PixQuotaProperties p = settings.properties();
    if (redis == null) {
      throw new InvalidConfigurationPropertyValueException("pixquota.quotas", p.getQuotas().keySet(), "named quotas "
          + "keep their buckets and pools in Redis: set pixquota.redis.url (an application's own TokenBucket bean "
          + "replaces the flat bucket only)");
    }
    flatUnset("pixquota.max-in-flight", p.getMaxInFlight() > 0 ? p.getMaxInFlight() : null, "max-in-flight");
    flatUnset("pixquota.bucket.capacity", p.getBucket().getCapacity(), "capacity");
    flatUnset("pixquota.bucket.rate", p.getBucket().getRate(), "refill-per-second");
    Map<String, PixQuotaQuotaProperties> configs = p.getConfigs();
    Duration providerTimeout = null;
    for (Map.Entry<String, PixQuotaQuotaProperties> e : p.getQuotas().entrySet()) {
      String name = e.getKey();
      String prefix = "pixquota.quotas." + name;
      PixQuotaQuotaProperties given = e.getValue();
      String baseName = given.getBaseConfig() != null ? given.getBaseConfig() : "default";
      PixQuotaQuotaProperties base = configs.get(baseName);
      if (base == null && given.getBaseConfig() != null) {
        throw new InvalidConfigurationPropertyValueException(prefix + ".base-config", baseName,
            "no pixquota.configs." + baseName + " is configured");
      }
      PixQuotaQuotaProperties q = base == null ? given.over(new PixQuotaQuotaProperties()) : given.over(base);
      if (q.isDict()) { // DICT's lookups each book their own buckets in the mirror: the quota routes them
        if (given.getHost() == null && q.getDict().getBaseUrl() != null) {
          q.setHost(check(prefix + ".dict.base-url", q.getDict().getBaseUrl(),
              () -> URI.create(q.getDict().getBaseUrl()).getHost()));
        }
        throttle.quota(name, match(prefix, q), new UnlimitedBucket(dictBucket(q.getDict())), 1);
        continue;
      }
      Match match = match(prefix, q);
      double cost = q.getCost() != null ? q.getCost() : 1;
      RedisTokenBucket bucket = null;
      if (q.getCapacity() != null || q.getRefillPerSecond() != null) {
        bucket = check(prefix + ".capacity", q.getCapacity(), () -> RedisTokenBucket.create(redis.client(),
            TokenBucketConfig.custom(name).limit(required(q.getCapacity(), "capacity"),
                required(q.getRefillPerSecond(), "refill-per-second")).keyPrefix(p.getBucket().getKeyPrefix())
            .redisTimeout(p.getRedis().getTimeout()).rateAdaptation(RateAdaptation.defaults()).build()));
      }
      if (q.getMaxInFlight() == null) {
        if (bucket == null) {
          throw new InvalidConfigurationPropertyValueException(prefix, name, "names no limit: set capacity and "
              + "refill-per-second (a rate), max-in-flight (a cap on calls in flight), or both");
        }
        RedisTokenBucket rate = bucket;
        check(prefix + ".cost", cost, () -> throttle.quota(name, match, rate, cost));
        continue;
      }
      Duration timeout = q.getProviderTimeout() != null ? q.getProviderTimeout() : settings.providerTimeout();
      providerTimeout = providerTimeout == null || timeout.compareTo(providerTimeout) > 0 ? timeout : providerTimeout;
      Duration lease = q.getPermitLease() != null ? q.getPermitLease()
          : p.getMaxWait().plus(timeout).plusSeconds(5);
      RedisTokenBucket b = bucket;
      PermitPool pool = check(prefix + ".max-in-flight", q.getMaxInFlight(), () -> b != null
          ? b.permitPool(name, q.getMaxInFlight(), lease)
          : RedisPermitPool.create(redis.client(), name, q.getMaxInFlight(), lease));
      check(prefix + ".cost", cost, () -> b != null ? throttle.quota(name, match, b, cost, pool)
          : throttle.quota(name, match, pool));
    }
    if (providerTimeout != null) {
      throttle.providerTimeout(providerTimeout);
    }
  }

  /** A flat setting of the default route, which named quotas replace: set, it would silently do nothing. */
  private static void flatUnset(String property, Object value, String quotaProperty) {
    if (value != null) {
      throw new InvalidConfigurationPropertyValueException(property, value, "named quotas replace the flat bucket "
          + "and cap: set pixquota.quotas.<name>." + quotaProperty + " on the quota it belongs to");
    }
  }

  /** The name a DICT quota's lookups book under: the DictClient's mirror group, {@code dict-<participant>}. */
  static String dictBucket(PixQuotaDictProperties d) {
    return "dict-" + d.getParticipant();
  }

  private static Match match(String prefix, PixQuotaQuotaProperties q) {
    Match m = q.getHost() == null ? Match.any() : check(prefix + ".host", q.getHost(), () -> Match.host(q.getHost()));
    if (q.getMethod() != null) {
      Match withHost = m;
      m = check(prefix + ".method", q.getMethod(), () -> withHost.method(q.getMethod()));
    }
    if (q.getPath() != null) {
      Match withMethod = m;
      m = check(prefix + ".path", q.getPath(), () -> withMethod.path(q.getPath()));
    }
    return m;
  }

  private static double required(Double value, String name) {
    if (value == null) {
      throw new IllegalArgumentException("a rate needs both capacity and refill-per-second; " + name
          + " is not set");
    }
    return value;
  }

  private static <T> T check(String property, Object value, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException e) {
      throw new InvalidConfigurationPropertyValueException(property, value, e.getMessage());
    }
  }
}
