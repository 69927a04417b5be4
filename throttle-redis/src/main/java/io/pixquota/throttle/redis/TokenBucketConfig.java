package io.pixquota.throttle.redis;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.support.Checks;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Settings of one {@link RedisTokenBucket}: its name, its limits, the clock, the Redis key prefix, how long its
 * configuration counts as live after its last use, and how its rate follows the provider's refusals. Immutable;
 * build with {@link #custom(String)} or {@link #of(String, double, double)}.
 *
 * <pre>{@code
 * TokenBucketConfig config = TokenBucketConfig.custom("pix")
 *     .limit(8, 9)          // burst 8, 9 tokens per second
 *     .limit(500, 500 / 60.0) // and at most 500 per minute
 *     .build();
 * }</pre>
 */
public final class TokenBucketConfig {
  /** Default key prefix: {@value}. */
  public static final String DEFAULT_KEY_PREFIX = "pixquota:";
  /** Default time to wait for Redis's answer: 1 s. */
  public static final Duration DEFAULT_REDIS_TIMEOUT = Duration.ofSeconds(1);
  /** Default of {@link Builder#configurationLease}: 30 s. */
  public static final Duration DEFAULT_CONFIGURATION_LEASE = Duration.ofSeconds(30);
  /**
   * The longest {@link Builder#configurationLease} any replica may claim: 5 min. The bucket's script holds every
   * configuration to it, whatever its replica asked (a longer lease written before is cut back), so a replica that
   * stopped cannot hold the fleet to its settings for longer.
   */
  public static final Duration MAX_CONFIGURATION_LEASE = Duration.ofMinutes(5);

  private final String name;
  private final List<Limit> limits;
  private final Clock clientClock;
  private final String keyPrefix;
  private final Duration redisTimeout;
  private final Duration configurationLease;
  private final Duration maxConfigurationLease;
  private final RateAdaptation rateAdaptation;
  private final Map<String, Double> shares;

  private TokenBucketConfig(Builder b) {
    this.name = b.name;
    this.limits = List.copyOf(b.limits);
    this.clientClock = b.clientClock;
    this.keyPrefix = b.keyPrefix;
    this.redisTimeout = b.redisTimeout;
    this.configurationLease = b.configurationLease;
    this.maxConfigurationLease = b.maxConfigurationLease != null ? b.maxConfigurationLease
        : b.configurationLease.compareTo(DEFAULT_CONFIGURATION_LEASE) > 0 ? b.configurationLease
        : DEFAULT_CONFIGURATION_LEASE;
    this.rateAdaptation = b.rateAdaptation;
    this.shares = b.shares;
  }

  /** A bucket with one limit. */
  public static TokenBucketConfig of(String name, double capacity, double refillPerSecond) {
    return custom(name).limit(capacity, refillPerSecond).build();
  }

  /** A builder for a bucket of this name: non-blank, without '{' or '}' (the key's cluster hash tag). */
  public static Builder custom(String name) {
    return new Builder(name);
  }

  /** A builder starting from the settings of {@code prototype}. */
  public static Builder from(TokenBucketConfig prototype) {
    Builder b = new Builder(prototype.name);
    b.limits.addAll(prototype.limits);
    b.clientClock = prototype.clientClock;
    b.keyPrefix = prototype.keyPrefix;
    b.redisTimeout = prototype.redisTimeout;
    b.configurationLease = prototype.configurationLease;
    b.rateAdaptation = prototype.rateAdaptation;
    b.shares = prototype.shares;
    return b;
  }

  public String name() {
    return name;
  }

  /** The limits, checked and charged together; at least one. */
  public List<Limit> limits() {
    return limits;
  }

  /** The client clock, if configured; empty means Redis {@code TIME} (the default). */
  public Optional<Clock> clientClock() {
    return Optional.ofNullable(clientClock);
  }

  public String keyPrefix() {
    return keyPrefix;
  }

  public Duration redisTimeout() {
    return redisTimeout;
  }

  /** How long this configuration keeps counting after its last use, for every replica of the bucket. */
  public Duration configurationLease() {
    return configurationLease;
  }

  /**
   * The longest this replica believes any configuration of the fleet counts after its last use: a longer lease
   * stored by another replica is cut to it, so a replica that died ({@code kill -9}) stops holding the fleet to its
   * settings within it.
   */
  public Duration maxConfigurationLease() {
    return maxConfigurationLease;
  }

  /** How the rate follows the provider's refusals; empty when it does not. */
  public Optional<RateAdaptation> rateAdaptation() {
    return Optional.ofNullable(rateAdaptation);
  }

  /** The flows that share the bucket and each one's weight ({@link Builder#shares}); empty when none. */
  public Optional<Map<String, Double>> shares() {
    return Optional.ofNullable(shares);
  }

  /** The Redis key of the bucket's hash: {@code <prefix>{<name>}:tb}. */
  public String key() {
    return keyPrefix + "{" + name + "}:tb";
  }

  /** The smallest capacity over the limits: the largest cost one call may have. */
  public double maxCost() {
    return limits.stream().mapToDouble(Limit::capacity).min().orElseThrow();
  }

  @Override
  public String toString() {
    return "TokenBucketConfig{name=" + name + ", limits=" + limits + ", clock="
        + (clientClock == null ? "redis" : "client") + ", keyPrefix=" + keyPrefix
        + ", redisTimeout=" + redisTimeout + ", configurationLease=" + configurationLease
        + ", maxConfigurationLease=" + maxConfigurationLease + ", rateAdaptation="
        + (rateAdaptation == null ? "off" : rateAdaptation) + (shares == null ? "" : ", shares=" + shares) + "}";
  }

  /** Builds a {@link TokenBucketConfig}; each setter validates at once. */
  public static final class Builder {
    private final String name;
    private final List<Limit> limits = new ArrayList<>();
    private Clock clientClock;
    private String keyPrefix = DEFAULT_KEY_PREFIX;
    private Duration redisTimeout = DEFAULT_REDIS_TIMEOUT;
    private Duration configurationLease = DEFAULT_CONFIGURATION_LEASE;
    private Duration maxConfigurationLease;
    private RateAdaptation rateAdaptation = RateAdaptation.defaults();
    private Map<String, Double> shares;

    private Builder(String name) {
      Checks.notBlank("name", name);
      if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
        throw new IllegalArgumentException("name must not contain '{' or '}', but was '" + name + "'");
      }
      this.name = name;
    }

    /** Adds a limit: burst {@code capacity}, refilled at {@code refillPerSecond}. At least one is required. */
    public Builder limit(double capacity, double refillPerSecond) {
      return limit(new Limit(capacity, refillPerSecond));
    }

    /** Adds a limit. At least one is required. */
    public Builder limit(Limit limit) {
      limits.add(Objects.requireNonNull(limit, "limit cannot be null"));
      return this;
    }

    /**
     * Uses this clock instead of Redis {@code TIME} (default: Redis's clock, the same for every replica). Meant for
     * deterministic tests and skew experiments. {@code updatedAt} still never moves backwards, so a late client
     * clock mints nothing, and a client time ahead of Redis's {@code TIME} is capped at it, so an early clock mints
     * nothing either.
     */
    public Builder clientClock(Clock clock) {
      this.clientClock = Objects.requireNonNull(clock, "clientClock cannot be null");
      return this;
    }

    /** Prefix of the bucket's Redis key; default {@value #DEFAULT_KEY_PREFIX}. May be empty. */
    public Builder keyPrefix(String keyPrefix) {
      Objects.requireNonNull(keyPrefix, "keyPrefix cannot be null");
      if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
        throw new IllegalArgumentException("keyPrefix must not contain '{' or '}', but was '" + keyPrefix + "'");
      }
      this.keyPrefix = keyPrefix;
      return this;
    }

    /** How long to wait for Redis's answer before giving up with a {@link StoreUnavailableException}; default 1 s. */
    public Builder redisTimeout(Duration timeout) {
      this.redisTimeout = Checks.positiveAtMostADay("redisTimeout", timeout);
      return this;
    }

    /**
     * How long this configuration (its set of limits) keeps counting after its last use; default 30 s. While
     * replicas of one bucket run different limits (a rolling deploy, a misconfigured replica), every live
     * configuration's limits are enforced together, so the fleet is held to the strictest; once a configuration has
     * not been used for its lease, it stops counting. Keep it above the longest max wait of the bucket's callers (a
     * caller may still be waiting for a slot its configuration booked); at most {@link #MAX_CONFIGURATION_LEASE}.
     * An operator clears a configuration at once with {@link RedisTokenBucket#clearConfiguration}.
     */
    public Builder configurationLease(Duration lease) {
      this.configurationLease = Checks.configurationLease(lease, MAX_CONFIGURATION_LEASE);
      return this;
    }

    /**
     * The longest this replica believes any configuration of the fleet counts after its last use (another replica's
     * longer lease is cut to it): a replica killed without a chance to take its configuration out stops counting
     * within it. Default: 30 s, or the configuration lease when that is longer; at most
     * {@link #MAX_CONFIGURATION_LEASE}, and not shorter than this replica's own {@link #configurationLease}.
     */
    public Builder maxConfigurationLease(Duration lease) {
      this.maxConfigurationLease = Checks.configurationLease(lease, MAX_CONFIGURATION_LEASE);
      return this;
    }

    /**
     * How the rate follows the provider's 429s; default {@link RateAdaptation#defaults()}; null to keep the
     * configured rate whatever the provider answers.
     */
    public Builder rateAdaptation(RateAdaptation adaptation) {
      this.rateAdaptation = adaptation;
      return this;
    }

    /**
     * Shares within the bucket: each flow (service) of the fleet and its weight, "*" among them (the
     * flows not named; 0: they only borrow). A flow is guaranteed the bucket's rate times its weight over the
     * weights' sum, and borrows what the others leave; {@link RedisTokenBucket#forFlow} gives a flow's bucket. Every
     * replica of the bucket must run the same shares for them to decide. Null (the default): none. Checked at
     * {@link #build()}: one limit, a capacity of one call per flow, weights of 0 or more, flow names of 1 to 64
     * letters, digits, '.', '_' or '-'.
     */
    public Builder shares(Map<String, Double> weights) {
      this.shares = weights == null ? null : Collections.unmodifiableMap(new TreeMap<>(weights));
      return this;
    }

    /**
     * @throws IllegalStateException without any limit, or with a maxConfigurationLease shorter than the
     *     configurationLease
     * @throws IllegalArgumentException for shares the bucket cannot hold, naming them
     */
    public TokenBucketConfig build() {
      if (limits.isEmpty()) {
        throw new IllegalStateException("bucket '" + name + "' needs at least one limit");
      }
      if (maxConfigurationLease != null && maxConfigurationLease.compareTo(configurationLease) < 0) {
        throw new IllegalStateException("maxConfigurationLease " + maxConfigurationLease.toMillis() + " ms must not "
            + "be shorter than configurationLease " + configurationLease.toMillis() + " ms: this replica would not "
            + "believe its own configuration");
      }
      TokenBucketConfig config = new TokenBucketConfig(this);
      config.stepSettings(); // shares checked now, not at the first call
      return config;
    }
  }

  /** The script's form of a rate adaptation. */
  static StepSettings.Adaptation adaptation(RateAdaptation a) {
    return new StepSettings.Adaptation(a.decrease(), a.increasePerSecond(), a.floor(),
        Checks.saturatedMicros(a.maxProviderHold()), Checks.saturatedMicros(a.loneCutRecovery()));
  }

  /**
   * The script's settings of a bucket of this configuration, as one replica of the fleet (a fresh replica id); without
   * a rate adaptation, the defaults fill the script's arguments.
   */
  StepSettings stepSettings() {
    List<StepSettings.LimitArgs> args = new ArrayList<>();
    for (Limit l : limits()) {
      args.add(new StepSettings.LimitArgs(Double.toString(l.capacity()), Double.toString(l.refillPerSecond())));
    }
    return new StepSettings(Checks.saturatedMicros(configurationLease()), Checks.saturatedMicros(
        maxConfigurationLease()), adaptation(rateAdaptation().orElse(RateAdaptation.defaults())),
        StepSettings.newReplicaId(), args, shares);
  }
}
