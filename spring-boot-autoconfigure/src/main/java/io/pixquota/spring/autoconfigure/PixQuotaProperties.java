package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.Priority;
import io.pixquota.throttle.QuotaHeaders;
import io.pixquota.throttle.RedisUnavailablePolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/** The {@code pixquota.*} properties, as bound; {@link PixQuotaSettings} checks them, naming the property. */
@ConfigurationProperties(prefix = "pixquota")
public class PixQuotaProperties {
  /** Whether to auto-configure the shared quota at all. */
  private boolean enabled = true;

  /** The longest a call waits for its slot before it is refused. */
  private Duration maxWait = Duration.ofSeconds(10);

  /** The class of calls that say nothing: INTERACTIVE (a person waits for it) or BATCH. */
  private Priority defaultPriority = Priority.INTERACTIVE;

  /** How far ahead a BATCH call may book its slot; 0: only a slot free now, so it never queues before a person. */
  private Duration batchHorizon = Duration.ZERO;

  /** The header that marks the provider's own 429s (others neither cut nor hold the rate); "none": every 429 counts. */
  private String quotaSignal = "RateLimit";

  /**
   * The header family the provider states its remaining quota in (RateLimit, X_RATELIMIT): fewer left than expected
   * lowers the shared bucket, at most once a second per replica; never raises it. Unset: not read.
   */
  private QuotaHeaders quotaHeaders;

  /**
   * Calls in flight at once for the whole fleet (BACEN's SPI: 6): each holds a permit of a pool beside the bucket from
   * its slot to its answer, taken in the same round trip; 0: no cap.
   */
  private int maxInFlight;

  /** How long a permit lasts when its holder dies; unset: the max wait plus the provider timeout plus 5 s. */
  private Duration permitLease;

  /** The service's flow in its quotas' shares (a request's own comes first); unset: spring.application.name. */
  private String flow;

  /**
   * How long the provider may keep working on a sent call: one that times out or is cancelled after its send keeps
   * its permit this long; unset: the provider's call timeout or 30 s, whichever is longer.
   */
  private Duration providerTimeout;

  @NestedConfigurationProperty
  private final PixQuotaProviderProperties provider = new PixQuotaProviderProperties();
  private final Bucket bucket = new Bucket();
  /** Named quotas, routed by request; with any, a request no quota takes is not throttled. */
  private final Map<String, PixQuotaQuotaProperties> quotas = new LinkedHashMap<>();
  /** Shared bases of the quotas' settings ({@code default}: every quota's). */
  private final Map<String, PixQuotaQuotaProperties> configs = new LinkedHashMap<>();
  private final Redis redis = new Redis();
  private final RedisUnavailable redisUnavailable = new RedisUnavailable();

  public String getFlow() {
    return flow;
  }

  public void setFlow(String flow) {
    this.flow = flow;
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Duration getMaxWait() {
    return maxWait;
  }

  public void setMaxWait(Duration maxWait) {
    this.maxWait = maxWait;
  }

  public Priority getDefaultPriority() {
    return defaultPriority;
  }

  public void setDefaultPriority(Priority defaultPriority) {
    this.defaultPriority = defaultPriority;
  }

  public Duration getBatchHorizon() {
    return batchHorizon;
  }

  public void setBatchHorizon(Duration batchHorizon) {
    this.batchHorizon = batchHorizon;
  }

  public String getQuotaSignal() {
    return quotaSignal;
  }

  public void setQuotaSignal(String quotaSignal) {
    this.quotaSignal = quotaSignal;
  }

  public QuotaHeaders getQuotaHeaders() {
    return quotaHeaders;
  }

  public void setQuotaHeaders(QuotaHeaders quotaHeaders) {
    this.quotaHeaders = quotaHeaders;
  }

  public int getMaxInFlight() {
    return maxInFlight;
  }

  public void setMaxInFlight(int maxInFlight) {
    this.maxInFlight = maxInFlight;
  }

  public Duration getProviderTimeout() {
    return providerTimeout;
  }

  public void setProviderTimeout(Duration providerTimeout) {
    this.providerTimeout = providerTimeout;
  }

  public Duration getPermitLease() {
    return permitLease;
  }

  public void setPermitLease(Duration permitLease) {
    this.permitLease = permitLease;
  }

  public PixQuotaProviderProperties getProvider() {
    return provider;
  }

  public Map<String, PixQuotaQuotaProperties> getQuotas() {
    return quotas;
  }

  public Map<String, PixQuotaQuotaProperties> getConfigs() {
    return configs;
  }

  public Bucket getBucket() {
    return bucket;
  }

  public Redis getRedis() {
    return redis;
  }

  public RedisUnavailable getRedisUnavailable() {
    return redisUnavailable;
  }

  /** The shared bucket: a capacity and a rate, or a plan from the provider's own policy. */
  public static class Bucket {
    /** The bucket's name: every replica that shares the quota uses the same one. */
    private String name = "pix";

    /** The burst; default 8 (under BACEN's 10 + 10/s with a margin), unless planned. */
    private Double capacity;

    /** The refill per second; default 9, unless planned. */
    private Double rate;

    /**
     * The provider's policy to plan the bucket from at startup (GET /policies/{name}, then QuotaPlanner): capacity,
     * rate and late limit provably under the provider's quota. Excludes capacity and rate.
     */
    private String planFromPolicy;

    /** The delay spread J between admission and arrival that the plan must tolerate. */
    private Duration planJitter = Duration.ofMillis(100);

    /** How many replicas share the bucket, for the plan's local share when Redis is away; default 1. */
    private int planReplicas = 1;

    /** The prefix of the bucket's Redis keys. */
    private String keyPrefix = "pixquota:";

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public Double getCapacity() {
      return capacity;
    }

    public void setCapacity(Double capacity) {
      this.capacity = capacity;
    }

    public Double getRate() {
      return rate;
    }

    public void setRate(Double rate) {
      this.rate = rate;
    }

    public String getPlanFromPolicy() {
      return planFromPolicy;
    }

    public void setPlanFromPolicy(String planFromPolicy) {
      this.planFromPolicy = planFromPolicy;
    }

    public Duration getPlanJitter() {
      return planJitter;
    }

    public void setPlanJitter(Duration planJitter) {
      this.planJitter = planJitter;
    }

    public int getPlanReplicas() {
      return planReplicas;
    }

    public void setPlanReplicas(int planReplicas) {
      this.planReplicas = planReplicas;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }
  }

  /** Where the bucket lives, when the application has no RedissonClient bean of its own. */
  public static class Redis {
    /** redis://[user:password@]host:port[/db], rediss://, redis-sentinel://h:p,.../MASTER or redis-cluster://. */
    private String url;

    /** How long a call waits for Redis's answer before the bucket counts as unavailable. */
    private Duration timeout = Duration.ofSeconds(1);

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }
  }

  /** What calls do while Redis does not answer. */
  public static class RedisUnavailable {
    /** FAIL_CLOSED: calls fail; LOCAL_FALLBACK: each process takes a local share of the quota. */
    private RedisUnavailablePolicy policy = RedisUnavailablePolicy.FAIL_CLOSED;

    /** The share of each limit a process takes under LOCAL_FALLBACK (0 < share <= 1); a plan caps it. */
    private double localShare = 0.5;

    public RedisUnavailablePolicy getPolicy() {
      return policy;
    }

    public void setPolicy(RedisUnavailablePolicy policy) {
      this.policy = policy;
    }

    public double getLocalShare() {
      return localShare;
    }

    public void setLocalShare(double localShare) {
      this.localShare = localShare;
    }
  }
}
