package io.pixquota.spring.autoconfigure;

import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixClientConfigBuilder;
import io.pixquota.bacen.pix.ThrottleSettings;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;

/**
 * The {@code pixquota.*} properties checked once, at startup, by the SDK's own builders: a bad value fails the
 * application's start with Spring Boot's "Invalid value ... for configuration property 'pixquota....'" report, which
 * names the property, its value (never a secret's) and the SDK's reason, before any I/O.
 */
final class PixQuotaSettings {
  /** A bucket for a PixClient that only reads the provider's policy, which is not throttled: never asked. */
  static final TokenBucket NEVER_USED = new TokenBucket() {
    @Override
    public String name() {
      return "planning";
    }

    @Override
    public List<Limit> limits() {
      return List.of(Limit.of(1, 1));
    }

    @Override
    public Acquisition acquire(double cost, Duration maxWait) {
      throw new IllegalStateException("the planning client books no slot");
    }

    @Override
    public double charge(double cost) {
      throw new IllegalStateException("the planning client books no slot");
    }

    @Override
    public double refund(double cost) {
      throw new IllegalStateException("the planning client books no slot");
    }
  };

  private final PixQuotaProperties properties;
  private final PixClientConfig client;
  private final String redisUrl;

  PixQuotaSettings(PixQuotaProperties p) {
    this.properties = p;
    PixQuotaProperties.Bucket b = p.getBucket();
    check("pixquota.bucket.key-prefix", b.getKeyPrefix(),
        () -> TokenBucketConfig.custom("x").keyPrefix(b.getKeyPrefix()).limit(1, 1).build());
    boolean planned = b.getPlanFromPolicy() != null;
    if (planned && (b.getCapacity() != null || b.getRate() != null)) {
      throw new MutuallyExclusiveConfigurationPropertiesException(
          Set.of("pixquota.bucket.plan-from-policy", b.getCapacity() != null ? "pixquota.bucket.capacity"
              : "pixquota.bucket.rate"),
          Set.of("pixquota.bucket.plan-from-policy", "pixquota.bucket.capacity", "pixquota.bucket.rate"));
    }
    if (planned) {
      if (!p.getQuotas().isEmpty()) {
        throw invalid("pixquota.bucket.plan-from-policy", b.getPlanFromPolicy(), "it plans the flat bucket, which "
            + "named quotas replace: declare the provider's quota on the quota instead (pixquota.quotas.<name>."
            + "provider-quota, e.g. 10 + 10/s)");
      }
      if (p.getProvider().getBaseUrl() == null) {
        throw invalid("pixquota.bucket.plan-from-policy", b.getPlanFromPolicy(),
            "planning reads the provider's policy: set pixquota.provider.base-url too");
      }
      check("pixquota.bucket.plan-from-policy", b.getPlanFromPolicy(), () -> {
        if (!b.getPlanFromPolicy().matches("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")) {
          throw new IllegalArgumentException("a policy name is 1 to 64 letters, digits, '_', '.' or '-'");
        }
        return null;
      });
      check("pixquota.bucket.plan-jitter", b.getPlanJitter(), () -> positive(b.getPlanJitter()));
      if (b.getPlanReplicas() < 1) {
        throw invalid("pixquota.bucket.plan-replicas", b.getPlanReplicas(), "at least 1");
      }
    } else if ((b.getCapacity() == null) != (b.getRate() == null)) {
      String missing = b.getCapacity() == null ? "pixquota.bucket.capacity" : "pixquota.bucket.rate";
      throw invalid(missing, null, "set pixquota.bucket.capacity and pixquota.bucket.rate together (or neither, "
          + "for the defaults, or pixquota.bucket.plan-from-policy)");
    }
    double capacity = b.getCapacity() != null ? b.getCapacity() : PixClientConfig.DEFAULT_BUCKET_CAPACITY;
    double rate = b.getRate() != null ? b.getRate() : PixClientConfig.DEFAULT_BUCKET_RATE;
    PixClientConfigBuilder c = PixClientConfig.builder();
    check("pixquota.bucket.capacity", capacity, () -> c.bucket(capacity, PixClientConfig.DEFAULT_BUCKET_RATE));
    check("pixquota.bucket.rate", rate, () -> c.bucket(capacity, rate));
    check("pixquota.bucket.name", b.getName(), () -> c.bucketName(b.getName()));
    check("pixquota.max-wait", p.getMaxWait(), () -> c.maxWait(p.getMaxWait()));
    check("pixquota.default-priority", p.getDefaultPriority(), () -> c.defaultPriority(p.getDefaultPriority()));
    check("pixquota.batch-horizon", p.getBatchHorizon(), () -> c.batchHorizon(p.getBatchHorizon()));
    check("pixquota.quota-signal", p.getQuotaSignal(), () -> c.quotaSignal(quotaSignal()));
    check("pixquota.max-in-flight", p.getMaxInFlight(), () -> c.maxInFlight(p.getMaxInFlight()));
    if (p.getProviderTimeout() != null) {
      check("pixquota.provider-timeout", p.getProviderTimeout(), () -> c.providerTimeout(p.getProviderTimeout()));
    }
    if (p.getPermitLease() != null) {
      check("pixquota.permit-lease", p.getPermitLease(), () -> c.permitLease(p.getPermitLease()));
      Duration held = p.getMaxWait().plus(providerTimeout());
      if (p.getMaxInFlight() > 0 && p.getPermitLease().compareTo(held) <= 0) {
        throw invalid("pixquota.permit-lease", p.getPermitLease(), "longer than pixquota.max-wait plus "
            + "pixquota.provider-timeout (" + held + "): a permit is held from the slot's booking until the provider "
            + "can no longer be working on the call");
      }
    }
    check("pixquota.redis.timeout", p.getRedis().getTimeout(), () -> c.redisTimeout(p.getRedis().getTimeout()));
    PixQuotaProperties.RedisUnavailable down = p.getRedisUnavailable();
    check("pixquota.redis-unavailable.policy", down.getPolicy(),
        () -> c.redisUnavailable(down.getPolicy(), 0.5));
    check("pixquota.redis-unavailable.local-share", down.getLocalShare(),
        () -> c.redisUnavailable(down.getPolicy(), down.getLocalShare()));
    this.redisUrl = p.getRedis().getUrl() == null || p.getRedis().getUrl().isBlank() ? null
        : check("pixquota.redis.url", RedisAddress.redacted(p.getRedis().getUrl()), () -> {
          RedisAddress.parse(p.getRedis().getUrl());
          return p.getRedis().getUrl().trim();
        });
    this.client = provider(p.getProvider(), c, p.getMaxWait());
  }

  /** The header by which the provider's own 429s are known; null ("none"): every 429 counts. */
  public String quotaSignal() {
    String s = properties.getQuotaSignal();
    return s == null || s.isBlank() || s.trim().equalsIgnoreCase("none") ? null : s.trim();
  }

  /** The permit pool's lease: the property, else the max wait plus the provider timeout plus 5 s. */
  public Duration permitLease() {
    PixQuotaProperties p = properties;
    return p.getPermitLease() != null ? p.getPermitLease() : p.getMaxWait().plus(providerTimeout()).plusSeconds(5);
  }

  /** How long the provider may keep working on a sent call: the property, else its call timeout or 30 s. */
  public Duration providerTimeout() {
    PixQuotaProperties p = properties;
    Duration call = p.getProvider().getCallTimeout();
    Duration fallback = ThrottleSettings.DEFAULT_PROVIDER_TIMEOUT;
    return p.getProviderTimeout() != null ? p.getProviderTimeout() : call.compareTo(fallback) > 0 ? call : fallback;
  }

  /** The provider's settings, when a base URL is set; null otherwise (no PixClient). */
  private static PixClientConfig provider(PixQuotaProviderProperties p, PixClientConfigBuilder c,
      Duration maxWait) {
    if (p.getBaseUrl() == null) {
      for (Map.Entry<String, Object> e : Map.<String, Object>of("pixquota.provider.token-url",
          String.valueOf(p.getTokenUrl()), "pixquota.provider.client-id", String.valueOf(p.getClientId()),
          "pixquota.provider.ssl-bundle", String.valueOf(p.getSslBundle())).entrySet()) {
        if (!"null".equals(e.getValue())) {
          throw invalid(e.getKey(), e.getValue(), "set pixquota.provider.base-url too: without it no PixClient is "
              + "made and this would be ignored");
        }
      }
      return null;
    }
    check("pixquota.provider.base-url", p.getBaseUrl(), () -> c.baseUrl(p.getBaseUrl()));
    if (p.getTokenUrl() != null) {
      check("pixquota.provider.token-url", p.getTokenUrl(), () -> c.tokenUrl(p.getTokenUrl()));
    }
    if (p.getClientId() == null || p.getClientId().isBlank()) {
      throw invalid("pixquota.provider.client-id", p.getClientId(), "required with pixquota.provider.base-url");
    }
    if (p.getClientSecret() == null || p.getClientSecret().isBlank()) {
      throw invalid("pixquota.provider.client-secret", p.getClientSecret() == null ? null : "(blank)",
          "required with pixquota.provider.base-url");
    }
    check("pixquota.provider.client-id", p.getClientId(),
        () -> c.credentials(p.getClientId(), p.getClientSecret()));
    check("pixquota.provider.call-timeout", p.getCallTimeout(), () -> c.callTimeout(p.getCallTimeout()));
    if (maxWait.compareTo(p.getCallTimeout()) >= 0) {
      throw invalid("pixquota.max-wait", maxWait, "shorter than pixquota.provider.call-timeout ("
          + p.getCallTimeout() + "): " + ThrottleSettings.maxWaitAboveCallTimeout(maxWait, p.getCallTimeout()));
    }
    check("pixquota.provider.retry-max-attempts", p.getRetryMaxAttempts(),
        () -> c.retry(p.getRetryMaxAttempts(), PixClientConfig.DEFAULT_RETRY_INITIAL_BACKOFF,
            PixClientConfig.DEFAULT_RETRY_MAX_BACKOFF, PixClientConfig.DEFAULT_RETRY_MAX_TOTAL));
    return c.build();
  }

  PixQuotaProperties properties() {
    return properties;
  }

  /** The PixClient's settings; null without {@code pixquota.provider.base-url}. */
  PixClientConfig client() {
    return client;
  }

  /** {@code pixquota.redis.url}, checked; null when not set. */
  String redisUrl() {
    return redisUrl;
  }

  /**
   * The shared bucket's settings at this capacity and rate (the configured ones, or a plan's), with the SDK's
   * defaults for the rest, as PixClient makes them: rate adaptation on, a 30 s configuration lease.
   */
  TokenBucketConfig bucketConfig(double capacity, double rate) {
    PixQuotaProperties.Bucket b = properties.getBucket();
    return TokenBucketConfig.custom(b.getName()).limit(capacity, rate).keyPrefix(b.getKeyPrefix())
        .redisTimeout(properties.getRedis().getTimeout()).rateAdaptation(RateAdaptation.defaults()).build();
  }

  /** The configured capacity, or the SDK's default. */
  double capacity() {
    Double c = properties.getBucket().getCapacity();
    return c != null ? c : PixClientConfig.DEFAULT_BUCKET_CAPACITY;
  }

  /** The configured rate, or the SDK's default. */
  double rate() {
    Double r = properties.getBucket().getRate();
    return r != null ? r : PixClientConfig.DEFAULT_BUCKET_RATE;
  }

  private static Object positive(Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("must be positive");
    }
    return d;
  }

  private static <T> T check(String property, Object value, Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException | IllegalStateException | NullPointerException e) {
      throw invalid(property, value, e.getMessage());
    }
  }

  private static InvalidConfigurationPropertyValueException invalid(String property, Object value, String reason) {
    return new InvalidConfigurationPropertyValueException(property, value, reason);
  }
}
