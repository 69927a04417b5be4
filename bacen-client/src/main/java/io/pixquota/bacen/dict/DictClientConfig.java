package io.pixquota.bacen.dict;

import io.pixquota.throttle.Priority;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link DictClient}: where DICT is, the participant, the secret that pseudonymises end users, the
 * policies mirrored, and how lookups wait. Build with {@link #builder()} or read {@link #fromEnvironment(Map)};
 * {@link #toString()} never shows the secret nor Redis's password.
 *
 * @param baseUrl          where DICT is served, used as given, its path ending in '/' (e.g.
 *                         {@code https://dict.pi.rsfn.net.br:16422/api/v1/}, the published specification 1.8.0's):
 *                         {@code entries/{Key}} and {@code policies/{policy}} resolve below it
 * @param participant      the participant's ISPB (8 digits), sent as {@code PI-RequestingParticipant}
 * @param payerSecret      the key of the HMAC-SHA-256 that makes {@code PI-PayerId} of an end user's id
 * @param policies         the policies mirrored (the provider's {@code GET /policies} may resize the PSP ones)
 * @param redisUrl         where the mirror lives when the client makes its own Redisson; may be null
 * @param redisTimeout     how long to wait for Redis's answer
 * @param keyPrefix        the mirror's key prefix
 * @param maxWait          the longest a lookup waits for a participant bucket's slot (a user's bucket never waits)
 * @param callTimeout      one lookup's HTTP call, the wait for its slot included
 * @param negativeCacheTtl how long a key that answered 404 is answered 404 without a lookup; zero: never
 * @param creditTtl        how long a lookup's credit waits for its payment to settle
 * @param flushDelay       the longest a refund waits to ride on the next lookup before it is sent on its own
 * @param defaultPriority  the class of lookups made without one
 * @param reserve          who may spend the participant's last tokens ({@link DictReserve}), its price derived
 */
public record DictClientConfig(URI baseUrl, String participant, String payerSecret, DictPolicies policies,
    String redisUrl, Duration redisTimeout, String keyPrefix, Duration maxWait, Duration callTimeout,
    Duration negativeCacheTtl, Duration creditTtl, Duration flushDelay, Priority defaultPriority,
    DictReserve reserve) {

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Reads {@code DICT_BASE_URL}*, {@code DICT_PARTICIPANT}*, {@code DICT_PAYER_SECRET}*, {@code DICT_POLICIES}
   * (v1.2.0 or later:A..H), {@code DICT_POLICY_SIZES} ({@code NAME=capacity/tokens/periodSeconds,...}),
   * {@code REDIS_URL}, {@code DICT_MAX_WAIT_MS} (5000), {@code DICT_CALL_TIMEOUT_MS} (10000),
   * {@code DICT_NEGATIVE_CACHE_MS} (0), {@code DICT_CREDIT_TTL_MS} (3600000), {@code DICT_RESERVE} (0.5),
   * {@code DICT_RISKY_RESERVE} (0.75), {@code DICT_STANDING_PRICE} (derived), {@code DICT_STANDING_TTL_MS} (30 days).
   *
   * @throws IllegalArgumentException naming the variable and its value (never the secret's)
   */
  public static DictClientConfig fromEnvironment(Map<String, String> env) {
    return DictEnvironment.read(env);
  }

  /** Where the lookups go: the base URL, used as given. */
  URI api() {
    return baseUrl;
  }

  @Override
  public String toString() {
    return "DictClientConfig{baseUrl=" + baseUrl + ", participant=" + participant + ", payerSecret=****, policies="
        + policies.counting() + ", redis=" + (redisUrl == null ? "none" : RedisAddress.parse(redisUrl))
        + ", maxWait=" + maxWait + ", callTimeout=" + callTimeout + ", negativeCacheTtl=" + negativeCacheTtl
        + ", creditTtl=" + creditTtl + ", reserve=" + reserve.share() + "/" + reserve.riskyShare() + " price "
        + reserve.price() + "}";
  }

  /** Builds a {@link DictClientConfig}; setters validate at once, {@link #build()} checks what is required. */
  public static final class Builder {
    private URI baseUrl;
    private String participant;
    private String payerSecret;
    private DictPolicies policies = DictPolicies.v120();
    private String redisUrl;
    private Duration redisTimeout = TokenBucketConfig.DEFAULT_REDIS_TIMEOUT;
    private String keyPrefix = TokenBucketConfig.DEFAULT_KEY_PREFIX;
    Duration maxWait = Duration.ofSeconds(5);
    Duration callTimeout = Duration.ofSeconds(10);
    private Duration negativeCacheTtl = Duration.ZERO;
    private Duration creditTtl = Duration.ofHours(1);
    private Duration flushDelay = Duration.ofSeconds(1);
    private Priority defaultPriority = Priority.INTERACTIVE;
    private DictReserve reserve = DictReserve.defaults();

    private Builder() {}

    /**
     * Where DICT is served, used as given: {@code entries/{Key}} resolves below its path (a '/' is added to a path
     * without one), e.g. {@code https://dict.pi.rsfn.net.br:16422/api/v1/}.
     */
    public Builder baseUrl(URI url) {
      Objects.requireNonNull(url, "baseUrl cannot be null");
      if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme()) || url.getHost() == null) {
        throw new IllegalArgumentException("baseUrl must be an http or https URL with a host, but was '" + url + "'");
      }
      if (url.getRawQuery() != null || url.getRawFragment() != null) {
        throw new IllegalArgumentException("baseUrl must have no query or fragment, but was '" + url + "'");
      }
      this.baseUrl = url.getRawPath() != null && url.getRawPath().endsWith("/") ? url : URI.create(url + "/");
      return this;
    }

    /** The participant's ISPB: 8 digits. */
    public Builder participant(String ispb) {
      if (ispb == null || !ispb.matches("[0-9]{8}")) {
        throw new IllegalArgumentException("participant must be the 8-digit ISPB, but was '" + ispb + "'");
      }
      this.participant = ispb;
      return this;
    }

    /** The secret of the end users' pseudonyms: at least 16 characters, known only to the participant. */
    public Builder payerSecret(String secret) {
      Objects.requireNonNull(secret, "payerSecret cannot be null");
      if (secret.length() < 16) {
        throw new IllegalArgumentException("payerSecret must be at least 16 characters, but had " + secret.length());
      }
      this.payerSecret = secret;
      return this;
    }

    /** The policies mirrored; default {@link DictPolicies#v120()}. */
    public Builder policies(DictPolicies table) {
      this.policies = Objects.requireNonNull(table, "policies cannot be null");
      return this;
    }

    /**
     * One policy's bucket resized (a category, a contract).
     *
     * @throws IllegalArgumentException for a policy the table does not have, or a bad size
     */
    public Builder policy(String name, double capacity, double refillTokens, Duration period) {
      this.policies = policies.resized(name, capacity, refillTokens, period);
      return this;
    }

    public Builder redisUrl(String url) {
      RedisAddress.parse(url);
      this.redisUrl = url.trim();
      return this;
    }

    public Builder redisTimeout(Duration timeout) {
      this.redisTimeout = Checks.positiveAtMostADay("redisTimeout", timeout);
      return this;
    }

    public Builder keyPrefix(String prefix) {
      Objects.requireNonNull(prefix, "keyPrefix cannot be null");
      if (prefix.indexOf('{') >= 0 || prefix.indexOf('}') >= 0) {
        throw new IllegalArgumentException("keyPrefix must not contain '{' or '}', but was '" + prefix + "'");
      }
      this.keyPrefix = prefix;
      return this;
    }

    /** The longest a lookup waits for a participant bucket's slot; default 5 s. */
    public Builder maxWait(Duration wait) {
      this.maxWait = Checks.notNegativeAtMostADay("maxWait", wait);
      return this;
    }

    /** One lookup's HTTP call, its wait included; default 10 s, longer than the max wait. */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = Checks.positiveAtMostADay("callTimeout", timeout);
      return this;
    }

    /** How long a key that answered 404 is answered 404 without asking DICT; default zero (never). */
    public Builder negativeCacheTtl(Duration ttl) {
      this.negativeCacheTtl = Checks.notNegativeAtMostADay("negativeCacheTtl", ttl);
      return this;
    }

    /** How long a lookup's credit waits for its payment; default 1 h, at most 7 days. */
    public Builder creditTtl(Duration ttl) {
      Objects.requireNonNull(ttl, "creditTtl cannot be null");
      if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(Duration.ofDays(7)) > 0) {
        throw new IllegalArgumentException("creditTtl must be within (0, 7 days], but was " + ttl);
      }
      this.creditTtl = ttl;
      return this;
    }

    /** The longest a refund or credit waits for the next lookup to ride on; default 1 s. */
    public Builder flushDelay(Duration delay) {
      this.flushDelay = Checks.positiveAtMostADay("flushDelay", delay);
      return this;
    }

    public Builder defaultPriority(Priority priority) {
      this.defaultPriority = Objects.requireNonNull(priority, "defaultPriority cannot be null");
      return this;
    }

    /**
     * Who may spend the participant's last tokens; default {@link DictReserve#defaults()}, {@link DictReserve#none()}
     * for none.
     */
    public Builder reserve(DictReserve r) {
      this.reserve = Objects.requireNonNull(r, "reserve cannot be null");
      return this;
    }

    /** @throws IllegalStateException when baseUrl, participant or payerSecret is missing, or maxWait >= callTimeout */
    public DictClientConfig build() {
      if (baseUrl == null) {
        throw new IllegalStateException("baseUrl is required");
      }
      if (participant == null) {
        throw new IllegalStateException("participant is required: the participant's ISPB");
      }
      if (payerSecret == null) {
        throw new IllegalStateException("payerSecret is required: PI-PayerId is pseudonymised with it");
      }
      if (maxWait.compareTo(callTimeout) >= 0) {
        throw new IllegalStateException("maxWait " + maxWait.toMillis() + " ms must be shorter than callTimeout "
            + callTimeout.toMillis() + " ms, which counts the wait");
      }
      return new DictClientConfig(baseUrl, participant, payerSecret, policies, redisUrl, redisTimeout, keyPrefix,
          maxWait, callTimeout, negativeCacheTtl, creditTtl, flushDelay, defaultPriority, reserve.pricedFor(policies));
    }
  }
}
