package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.Match;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.redis.RedisPermitPool;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.TokenBucketConfig;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.UnlimitedBucket;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.LinkedHashMap;
import java.util.function.Supplier;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * {@code pixquota.quotas.<name>.*} made into the throttle's quotas, each over its base config: a Redis bucket named
 * after the quota for a rate, a fleet-wide pool for a cap on calls in flight (beside the bucket when it has both), and
 * the request's host, method and path it takes. A bad value stops the start naming the property.
 */
final class PixQuotaQuotas {
  /** The J a plan from a declared quota covers when the quota sets no {@code plan-jitter}. */
  static final Duration DEFAULT_JITTER = Duration.ofMillis(100);

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
    QuotaPlan strictest = null; // of the quotas planned from a declared quota: the smallest J, its late limit
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
      QuotaPlan planned = plan(prefix, q);
      if (planned != null) {
        strictest = strictest == null || planned.jitter().compareTo(strictest.jitter()) < 0 ? planned : strictest;
        bucket = check(prefix + ".provider-quota", q.getProviderQuota(), () -> bucket(redis, p, name,
            planned.capacity(), planned.ratePerSecond(), null));
      } else if (q.getCapacity() != null || q.getRefillPerSecond() != null) {
        bucket = check(prefix + ".capacity", q.getCapacity(), () -> bucket(redis, p, name,
            required(q.getCapacity(), "capacity"), required(q.getRefillPerSecond(), "refill-per-second"), null));
      }
      if (q.getShares() != null || q.getDefaultShare() != null) {
        bucket = shared(prefix, q, bucket, redis, p, name);
      }
      if (q.getMaxInFlight() == null) {
        if (bucket == null) {
          throw new InvalidConfigurationPropertyValueException(prefix, name, "names no limit: set provider-quota "
              + "(the provider's published quota, e.g. 10 + 10/s) or capacity and refill-per-second (a rate), "
              + "max-in-flight (a cap on calls in flight), or both");
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
          : RedisPermitPool.create(redis.store(), name, q.getMaxInFlight(), lease));
      check(prefix + ".cost", cost, () -> b != null ? throttle.quota(name, match, b, cost, pool)
          : throttle.quota(name, match, pool));
    }
    if (providerTimeout != null) {
      throttle.providerTimeout(providerTimeout);
    }
    if (strictest != null) {
      throttle.plan(strictest);
    }
  }

  /**
   * The plan from the quota's declared provider quota ({@code provider-quota}, its J {@code plan-jitter}), or null
   * when it declares none; with {@code capacity} or {@code refill-per-second} too, refused: one or the other.
   */
  static QuotaPlan plan(String prefix, PixQuotaQuotaProperties q) {
    if (q.getProviderQuota() == null) {
      return null;
    }
    if (q.getCapacity() != null || q.getRefillPerSecond() != null) {
      throw new InvalidConfigurationPropertyValueException(prefix + ".provider-quota", q.getProviderQuota(),
          "the planner derives the bucket from the provider's quota: set provider-quota, or capacity and "
          + "refill-per-second as they are, not both");
    }
    ProviderPolicy policy = check(prefix + ".provider-quota", q.getProviderQuota(),
        () -> DeclaredQuota.parse(q.getProviderQuota()));
    Duration jitter = q.getPlanJitter() != null ? q.getPlanJitter() : DEFAULT_JITTER;
    return check(prefix + ".plan-jitter", jitter, () -> {
      if (jitter.isNegative() || jitter.isZero()) {
        throw new IllegalArgumentException("J must be > 0: calls reach the provider later than their slots");
      }
      return QuotaPlanner.plan(policy, jitter);
    });
  }

  private static RedisTokenBucket bucket(PixQuotaRedis redis, PixQuotaProperties p, String name, double capacity,
      double rate, Map<String, Double> shares) {
    return RedisTokenBucket.create(redis.store(), TokenBucketConfig.custom(name).limit(capacity, rate)
        .keyPrefix(p.getBucket().getKeyPrefix()).redisTimeout(p.getRedis().getTimeout())
        .rateAdaptation(RateAdaptation.defaults()).shares(shares).build());
  }

  /** The quota's bucket with its shares ({@code shares}, {@code default-share} for the flows not named). */
  private static RedisTokenBucket shared(String prefix, PixQuotaQuotaProperties q, RedisTokenBucket bucket,
      PixQuotaRedis redis, PixQuotaProperties p, String name) {
    if (bucket == null || q.getShares() == null) {
      throw new InvalidConfigurationPropertyValueException(prefix + ".shares", q.getShares(), bucket == null
          ? "shares divide a rate: set provider-quota, or capacity and refill-per-second, on this quota too"
          : "default-share is the weight of the flows shares do not name: set shares too");
    }
    Map<String, Double> weights = new LinkedHashMap<>(q.getShares());
    Double others = weights.put("*", q.getDefaultShare() != null ? q.getDefaultShare() : 0.0);
    if (others != null) {
      throw new InvalidConfigurationPropertyValueException(prefix + ".shares", q.getShares(), "the flows not "
          + "named are set by default-share, not as a flow '*'");
    }
    Limit limit = bucket.limits().get(0);
    return check(prefix + ".shares", q.getShares(), () -> bucket(redis, p, name, limit.capacity(),
        limit.refillPerSecond(), weights));
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
