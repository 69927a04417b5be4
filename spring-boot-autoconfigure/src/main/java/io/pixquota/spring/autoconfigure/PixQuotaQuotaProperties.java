package io.pixquota.spring.autoconfigure;

import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * One quota under {@code pixquota.quotas.<name>} (or a shared base under {@code pixquota.configs.<name>}, which a
 * quota names in {@code base-config}; {@code configs.default} is every quota's base): which requests it takes and
 * what it enforces. A setting the quota leaves out comes from its base. resilience4j's instances and configs are the
 * model.
 */
public class PixQuotaQuotaProperties {
  /** The shared base this quota's settings default to ({@code pixquota.configs.<name>}); default {@code default}. */
  private String baseConfig;
  /** The requests' host, e.g. {@code pix.example.com}; no scheme, port or path. Unset: any host. */
  private String host;
  /** The requests' method, e.g. {@code GET}. Unset: any. */
  private String method;
  /** A regular expression the whole encoded path matches, e.g. {@code /api/v2/pix/.*}. Unset: any path. */
  private String path;
  /**
   * The provider's published quota, e.g. {@code 10 + 10/s} (a token bucket: burst + rate) or {@code 600 per 1m} (a
   * sliding window): the planner derives the quota's bucket from it and {@code plan-jitter}, asking the provider
   * nothing. Instead of {@code capacity} and {@code refill-per-second}.
   */
  private String providerQuota;
  /** The jitter J the plan from {@code provider-quota} covers (lateness plus network); default 100 ms. */
  private Duration planJitter;
  /** The quota's bucket capacity (its burst), with {@code refill-per-second}: a rate, as given. */
  private Double capacity;
  /** The quota's bucket refill per second, with {@code capacity}. */
  private Double refillPerSecond;
  /** What one request costs on the bucket; default 1. */
  private Double cost;
  /** A cap on the quota's calls in flight, fleet-wide (BACEN's SPI: 6); with or without a rate. */
  private Integer maxInFlight;
  /** How long a permit lasts when its holder dies; default max wait + provider timeout + 5 s. */
  private Duration permitLease;
  /** How long the provider may keep working on a sent call (required with max-in-flight, or pixquota's). */
  private Duration providerTimeout;
  /**
   * Shares within the quota: each service's (flow's) weight, e.g. {@code checkout: 5}; a flow is
   * guaranteed the quota's rate times its weight over the weights' sum and borrows what the others leave. A
   * request's flow is its service's ({@code pixquota.flow}, else {@code spring.application.name}). Unset: none.
   */
  private Map<String, Double> shares;
  /** With shares, the weight of the flows they do not name; default 0: those only borrow what the others leave. */
  private Double defaultShare;
  /** DICT's lookups: with a participant, this quota is DICT's (not inherited from a base config). */
  @NestedConfigurationProperty
  private final PixQuotaDictProperties dict = new PixQuotaDictProperties();

  public String getBaseConfig() {
    return baseConfig;
  }

  public void setBaseConfig(String baseConfig) {
    this.baseConfig = baseConfig;
  }

  public String getHost() {
    return host;
  }

  public void setHost(String host) {
    this.host = host;
  }

  public String getMethod() {
    return method;
  }

  public void setMethod(String method) {
    this.method = method;
  }

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  public String getProviderQuota() {
    return providerQuota;
  }

  public void setProviderQuota(String providerQuota) {
    this.providerQuota = providerQuota;
  }

  public Duration getPlanJitter() {
    return planJitter;
  }

  public void setPlanJitter(Duration planJitter) {
    this.planJitter = planJitter;
  }

  public Double getCapacity() {
    return capacity;
  }

  public void setCapacity(Double capacity) {
    this.capacity = capacity;
  }

  public Double getRefillPerSecond() {
    return refillPerSecond;
  }

  public void setRefillPerSecond(Double refillPerSecond) {
    this.refillPerSecond = refillPerSecond;
  }

  public Double getCost() {
    return cost;
  }

  public void setCost(Double cost) {
    this.cost = cost;
  }

  public Integer getMaxInFlight() {
    return maxInFlight;
  }

  public void setMaxInFlight(Integer maxInFlight) {
    this.maxInFlight = maxInFlight;
  }

  public Duration getPermitLease() {
    return permitLease;
  }

  public void setPermitLease(Duration permitLease) {
    this.permitLease = permitLease;
  }

  public Duration getProviderTimeout() {
    return providerTimeout;
  }

  public void setProviderTimeout(Duration providerTimeout) {
    this.providerTimeout = providerTimeout;
  }

  public Map<String, Double> getShares() {
    return shares;
  }

  public void setShares(Map<String, Double> shares) {
    this.shares = shares;
  }

  public Double getDefaultShare() {
    return defaultShare;
  }

  public void setDefaultShare(Double defaultShare) {
    this.defaultShare = defaultShare;
  }

  public PixQuotaDictProperties getDict() {
    return dict;
  }

  /** Whether this quota is DICT's: its lookups go through a {@code DictClient}. */
  boolean isDict() {
    return dict.getParticipant() != null;
  }

  /** This quota's settings over {@code base}'s: what this one leaves out comes from the base. */
  PixQuotaQuotaProperties over(PixQuotaQuotaProperties base) {
    PixQuotaQuotaProperties r = new PixQuotaQuotaProperties();
    r.host = host != null ? host : base.host;
    r.method = method != null ? method : base.method;
    r.path = path != null ? path : base.path;
    r.providerQuota = providerQuota != null ? providerQuota : base.providerQuota;
    r.planJitter = planJitter != null ? planJitter : base.planJitter;
    r.capacity = capacity != null ? capacity : base.capacity;
    r.refillPerSecond = refillPerSecond != null ? refillPerSecond : base.refillPerSecond;
    r.cost = cost != null ? cost : base.cost;
    r.maxInFlight = maxInFlight != null ? maxInFlight : base.maxInFlight;
    r.permitLease = permitLease != null ? permitLease : base.permitLease;
    r.providerTimeout = providerTimeout != null ? providerTimeout : base.providerTimeout;
    r.shares = shares != null ? shares : base.shares;
    r.defaultShare = defaultShare != null ? defaultShare : base.defaultShare;
    r.dict.setBaseUrl(dict.getBaseUrl());
    r.dict.setParticipant(dict.getParticipant());
    r.dict.setPayerSecret(dict.getPayerSecret());
    r.dict.setPolicies(dict.getPolicies());
    return r;
  }
}
