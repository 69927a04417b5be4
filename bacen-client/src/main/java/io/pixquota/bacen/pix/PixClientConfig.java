package io.pixquota.bacen.pix;

import io.pixquota.bacen.Limit;
import io.pixquota.bacen.Priority;
import io.pixquota.bacen.RateAdaptation;
import io.pixquota.bacen.RedisAddress;
import io.pixquota.bacen.RedisUnavailablePolicy;
import io.pixquota.bacen.ThrottlingInterceptor;
import io.pixquota.bacen.TokenBucketConfig;
import io.pixquota.bacen.internal.Checks;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of a {@link PixClient}: the provider, the credentials, the shared bucket and the retry. Build with
 * {@link #builder()} or read from environment variables with {@link #fromEnvironment()}. Immutable;
 * {@link #toString()} never shows the client secret nor the Redis password.
 */
public final class PixClientConfig {
  /** Default bucket name: {@value}. */
  public static final String DEFAULT_BUCKET_NAME = "pix";
  /** Default bucket capacity: {@value}, under BACEN's 10. */
  public static final double DEFAULT_BUCKET_CAPACITY = 8;
  /** Default bucket refill per second: {@value}, under BACEN's 10. */
  public static final double DEFAULT_BUCKET_RATE = 9;
  /** Default OkHttp call timeout of one attempt, the wait for its slot included: 30 s. */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);
  /** Default attempts in all: {@value}. */
  public static final int DEFAULT_RETRY_MAX_ATTEMPTS = 3;
  /** Default first backoff cap: 200 ms. */
  public static final Duration DEFAULT_RETRY_INITIAL_BACKOFF = Duration.ofMillis(200);
  /** Default backoff cap: 5 s. */
  public static final Duration DEFAULT_RETRY_MAX_BACKOFF = Duration.ofSeconds(5);
  /** Default budget of all attempts and waits: 15 s. */
  public static final Duration DEFAULT_RETRY_MAX_TOTAL = Duration.ofSeconds(15);

  private final URI baseUrl;
  private final URI tokenUrl;
  private final String clientId;
  private final String clientSecret;
  private final String redisUrl;
  private final String bucketName;
  private final double bucketCapacity;
  private final double bucketRate;
  private final Duration maxWait;
  private final Duration callTimeout;
  private final Duration redisTimeout;
  private final int retryMaxAttempts;
  private final Duration retryInitialBackoff;
  private final Duration retryMaxBackoff;
  private final Duration retryMaxTotal;
  private final RedisUnavailablePolicy redisUnavailable;
  private final double localShare;
  private final boolean throttleTokenCalls;
  private final Duration configurationLease;
  private final RateAdaptation rateAdaptation;
  private final Priority defaultPriority;
  private final Duration batchHorizon;
  private final String quotaSignal;

  private PixClientConfig(Builder b) {
    this.baseUrl = b.baseUrl;
    this.tokenUrl = b.tokenUrl != null ? b.tokenUrl : directory(b.baseUrl).resolve("oauth/token");
    this.clientId = b.clientId;
    this.clientSecret = b.clientSecret;
    this.redisUrl = b.redisUrl;
    this.bucketName = b.bucketName;
    this.bucketCapacity = b.bucketCapacity;
    this.bucketRate = b.bucketRate;
    this.maxWait = b.maxWait;
    this.callTimeout = b.callTimeout;
    this.redisTimeout = b.redisTimeout;
    this.retryMaxAttempts = b.retryMaxAttempts;
    this.retryInitialBackoff = b.retryInitialBackoff;
    this.retryMaxBackoff = b.retryMaxBackoff;
    this.retryMaxTotal = b.retryMaxTotal;
    this.redisUnavailable = b.redisUnavailable;
    this.localShare = b.localShare;
    this.throttleTokenCalls = b.throttleTokenCalls;
    this.configurationLease = b.configurationLease;
    this.rateAdaptation = b.rateAdaptation;
    this.defaultPriority = b.defaultPriority;
    this.batchHorizon = b.batchHorizon;
    this.quotaSignal = b.quotaSignal;
  }

  /** {@code uri} with a path that ends in '/': relative paths resolve below it, not beside it. */
  static URI directory(URI uri) {
    String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
    return path.endsWith("/") ? uri : uri.resolve(path.substring(path.lastIndexOf('/') + 1) + "/");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Reads the process environment; see {@link #fromEnvironment(Map)}. */
  public static PixClientConfig fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  /**
   * Reads these variables (required ones marked *): {@code BACEN_BASE_URL}*, {@code BACEN_TOKEN_URL} (default
   * base URL + oauth/token), {@code BACEN_CLIENT_ID}*, {@code BACEN_CLIENT_SECRET}*, {@code REDIS_URL},
   * {@code BACEN_BUCKET_NAME} (pix), {@code BACEN_BUCKET_CAPACITY} (8), {@code BACEN_BUCKET_RATE} (9 per second),
   * {@code BACEN_MAX_WAIT_MS} (10000), {@code BACEN_CALL_TIMEOUT_MS} (30000), {@code BACEN_REDIS_TIMEOUT_MS} (1000),
   * {@code BACEN_RETRY_MAX_ATTEMPTS} (3), {@code BACEN_RETRY_INITIAL_BACKOFF_MS} (200),
   * {@code BACEN_RETRY_MAX_BACKOFF_MS} (5000), {@code BACEN_RETRY_MAX_TOTAL_MS} (15000),
   * {@code BACEN_REDIS_UNAVAILABLE} (FAIL_CLOSED or LOCAL_FALLBACK), {@code BACEN_LOCAL_SHARE} (0.5),
   * {@code BACEN_CONFIGURATION_LEASE_MS} (30000), {@code BACEN_RATE_ADAPTATION} (on or off; default on),
   * {@code BACEN_DEFAULT_PRIORITY} (INTERACTIVE or BATCH), {@code BACEN_BATCH_HORIZON_MS} (0),
   * {@code BACEN_QUOTA_SIGNAL} (a header name; none: every 429 counts).
   *
   * @throws IllegalArgumentException naming the variable and its value when one is missing or malformed
   */
  public static PixClientConfig fromEnvironment(Map<String, String> env) {
    return PixEnvironment.read(env);
  }

  /** The API's base URL; {@code api/v2/...} resolves below its path. */
  public URI baseUrl() {
    return baseUrl;
  }

  public URI tokenUrl() {
    return tokenUrl;
  }

  public String clientId() {
    return clientId;
  }

  /** The client secret; never logged, never in {@link #toString()}. */
  public String clientSecret() {
    return clientSecret;
  }

  /** Where the shared bucket lives, when the client creates its own Redisson; may be null. */
  public String redisUrl() {
    return redisUrl;
  }

  public String bucketName() {
    return bucketName;
  }

  public double bucketCapacity() {
    return bucketCapacity;
  }

  public double bucketRate() {
    return bucketRate;
  }

  public Duration maxWait() {
    return maxWait;
  }

  public Duration callTimeout() {
    return callTimeout;
  }

  public Duration redisTimeout() {
    return redisTimeout;
  }

  public int retryMaxAttempts() {
    return retryMaxAttempts;
  }

  public Duration retryInitialBackoff() {
    return retryInitialBackoff;
  }

  public Duration retryMaxBackoff() {
    return retryMaxBackoff;
  }

  public Duration retryMaxTotal() {
    return retryMaxTotal;
  }

  public RedisUnavailablePolicy redisUnavailable() {
    return redisUnavailable;
  }

  public double localShare() {
    return localShare;
  }

  public boolean throttleTokenCalls() {
    return throttleTokenCalls;
  }

  /** The class of calls made without one ({@link PixClient#getPix(String)}); default INTERACTIVE. */
  public Priority defaultPriority() {
    return defaultPriority;
  }

  /** How far ahead a BATCH call may book its slot; default 0. See {@link Priority}. */
  public Duration batchHorizon() {
    return batchHorizon;
  }

  /**
   * The header by which the provider's own 429s are known; empty: every 429 counts. See
   * {@link ThrottlingInterceptor.Builder#quotaSignal(String)}.
   */
  public Optional<String> quotaSignal() {
    return Optional.ofNullable(quotaSignal);
  }

  /** See {@link TokenBucketConfig.Builder#configurationLease(Duration)}. */
  public Duration configurationLease() {
    return configurationLease;
  }

  /** How the shared bucket's rate follows the provider's 429s; empty when it keeps the configured rate. */
  public Optional<RateAdaptation> rateAdaptation() {
    return Optional.ofNullable(rateAdaptation);
  }

  /** The shared bucket's settings: name, limit, Redis timeout, configuration lease and rate adaptation. */
  TokenBucketConfig bucketConfig(double capacity, double ratePerSecond) {
    return TokenBucketConfig.custom(bucketName).limit(capacity, ratePerSecond).redisTimeout(redisTimeout)
        .configurationLease(configurationLease).rateAdaptation(rateAdaptation).build();
  }

  @Override
  public String toString() {
    return "PixClientConfig{baseUrl=" + baseUrl + ", tokenUrl=" + tokenUrl + ", clientId=" + clientId
        + ", clientSecret=****, redis=" + (redisUrl == null ? "none" : RedisAddress.parse(redisUrl)) + ", bucket="
        + bucketName + " (" + bucketCapacity + ", " + bucketRate + "/s), maxWait=" + maxWait + ", callTimeout="
        + callTimeout + ", retry=" + retryMaxAttempts + " attempts within " + retryMaxTotal + ", redisUnavailable="
        + redisUnavailable + ", configurationLease=" + configurationLease + ", rateAdaptation="
        + (rateAdaptation == null ? "off" : rateAdaptation) + ", defaultPriority=" + defaultPriority
        + ", batchHorizon=" + batchHorizon + ", quotaSignal=" + (quotaSignal == null ? "any 429" : quotaSignal)
        + "}";
  }

  /** Why a max wait of {@code maxWait} cannot go with a call timeout of {@code callTimeout}. */
  public static String maxWaitAboveCallTimeout(Duration maxWait, Duration callTimeout) {
    return "maxWait " + maxWait.toMillis() + " ms must be shorter than callTimeout " + callTimeout.toMillis()
        + " ms: the call timeout counts the wait for the slot, so calls would be refused after "
        + callTimeout.toMillis() + " ms; raise callTimeout above maxWait plus the provider's answer time";
  }

  /** Builds a {@link PixClientConfig}; setters validate at once, {@link #build()} checks what is required. */
  public static final class Builder {
    private URI baseUrl;
    private URI tokenUrl;
    private String clientId;
    private String clientSecret;
    private String redisUrl;
    private String bucketName = DEFAULT_BUCKET_NAME;
    double bucketCapacity = DEFAULT_BUCKET_CAPACITY;
    double bucketRate = DEFAULT_BUCKET_RATE;
    Duration maxWait = ThrottlingInterceptor.DEFAULT_MAX_WAIT;
    Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    private Duration redisTimeout = TokenBucketConfig.DEFAULT_REDIS_TIMEOUT;
    int retryMaxAttempts = DEFAULT_RETRY_MAX_ATTEMPTS;
    Duration retryInitialBackoff = DEFAULT_RETRY_INITIAL_BACKOFF;
    Duration retryMaxBackoff = DEFAULT_RETRY_MAX_BACKOFF;
    Duration retryMaxTotal = DEFAULT_RETRY_MAX_TOTAL;
    RedisUnavailablePolicy redisUnavailable = RedisUnavailablePolicy.FAIL_CLOSED;
    double localShare = ThrottlingInterceptor.DEFAULT_LOCAL_SHARE;
    private boolean throttleTokenCalls;
    private Duration configurationLease = TokenBucketConfig.DEFAULT_CONFIGURATION_LEASE;
    RateAdaptation rateAdaptation = RateAdaptation.defaults();
    private Priority defaultPriority = Priority.INTERACTIVE;
    private Duration batchHorizon = Duration.ZERO;
    private String quotaSignal;

    private Builder() {}

    /**
     * The API's base URL, e.g. {@code https://pix.example.com} or {@code https://gw.example.com/pix}: calls go to
     * {@code api/v2/...} below its path.
     */
    public Builder baseUrl(URI baseUrl) {
      this.baseUrl = httpUrl("baseUrl", baseUrl);
      return this;
    }

    /** The OAuth2 token endpoint; default {@code oauth/token} below the base URL's path. */
    public Builder tokenUrl(URI tokenUrl) {
      this.tokenUrl = httpUrl("tokenUrl", tokenUrl);
      return this;
    }

    private static URI httpUrl(String field, URI url) {
      Objects.requireNonNull(url, field + " cannot be null");
      if (!"http".equals(url.getScheme()) && !"https".equals(url.getScheme())) {
        throw new IllegalArgumentException(field + " must be http or https, but was '" + url + "'");
      }
      if (url.getHost() == null) {
        throw new IllegalArgumentException(field + " has no host: '" + url + "'");
      }
      return url;
    }

    /** OAuth2 client credentials: the integrator's client id and secret. */
    public Builder credentials(String clientId, String clientSecret) {
      this.clientId = Checks.notBlank("clientId", clientId);
      Objects.requireNonNull(clientSecret, "clientSecret cannot be null");
      if (clientSecret.isBlank()) {
        throw new IllegalArgumentException("clientSecret must not be blank");
      }
      this.clientSecret = clientSecret;
      return this;
    }

    /** Redis for the shared bucket, used when the client is created without a RedissonClient. */
    public Builder redisUrl(String redisUrl) {
      RedisAddress.parse(redisUrl);
      this.redisUrl = redisUrl.trim();
      return this;
    }

    /**
     * The shared bucket's name; every replica of one integrator must use the same. Default {@value
     * #DEFAULT_BUCKET_NAME}; no '{' or '}' (the key's cluster hash tag).
     */
    public Builder bucketName(String name) {
      this.bucketName = TokenBucketConfig.custom(Checks.notBlank("bucketName", name)).limit(1, 1).build().name();
      return this;
    }

    /**
     * Burst and refill of the shared bucket, a little under the provider's quota; default 8 and 9 per second. The
     * capacity is at least 1, the cost of one call.
     */
    public Builder bucket(double capacity, double refillPerSecond) {
      Limit limit = Limit.of(capacity, refillPerSecond);
      if (capacity < 1) {
        throw new IllegalArgumentException("capacity must be >= 1, the cost of one call, but was " + capacity);
      }
      this.bucketCapacity = limit.capacity();
      this.bucketRate = limit.refillPerSecond();
      return this;
    }

    /** The longest a call waits for its slot; default 10 s. Shorter than {@link #callTimeout}, which counts it. */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = Checks.notNegativeAtMostADay("maxWait", maxWait);
      return this;
    }

    /** OkHttp's call timeout for one attempt, wait for the slot included; default 30 s. */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = Checks.positiveAtMostADay("callTimeout", timeout);
      return this;
    }

    /** How long to wait for Redis's answer; default 1 s. */
    public Builder redisTimeout(Duration timeout) {
      this.redisTimeout = Checks.positiveAtMostADay("redisTimeout", timeout);
      return this;
    }

    /**
     * Retry of 429, 503 and I/O errors: at most {@code maxAttempts} attempts in all (1 = no retry), waiting
     * max(Retry-After rounded up, a random backoff in [0, min(maxBackoff, initialBackoff x 2^n)]), giving up when
     * the next wait would pass {@code maxTotal} since the first attempt. Defaults: 3, 200 ms, 5 s, 15 s.
     */
    public Builder retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxTotal) {
      if (maxAttempts < 1 || maxAttempts > 20) {
        throw new IllegalArgumentException("maxAttempts must be within 1..20, but was " + maxAttempts);
      }
      this.retryInitialBackoff = Checks.positiveAtMostADay("initialBackoff", initialBackoff);
      this.retryMaxBackoff = Checks.positiveAtMostADay("maxBackoff", maxBackoff);
      this.retryMaxTotal = Checks.positiveAtMostADay("maxTotal", maxTotal);
      if (maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException("maxBackoff must be >= initialBackoff " + initialBackoff + ", but was "
            + maxBackoff);
      }
      this.retryMaxAttempts = maxAttempts;
      return this;
    }

    /**
     * What to do while Redis is unavailable, and the local share for LOCAL_FALLBACK; default FAIL_CLOSED and
     * {@value ThrottlingInterceptor#DEFAULT_LOCAL_SHARE}.
     */
    public Builder redisUnavailable(RedisUnavailablePolicy policy, double localShare) {
      this.redisUnavailable = Objects.requireNonNull(policy, "policy cannot be null");
      this.localShare = Checks.share("localShare", localShare);
      return this;
    }

    /** Whether token requests also take a slot in the bucket (for providers that count them); default false. */
    public Builder throttleTokenCalls(boolean throttle) {
      this.throttleTokenCalls = throttle;
      return this;
    }

    /**
     * How long a configuration of the shared bucket keeps counting after its last use; default 30 s. See
     * {@link TokenBucketConfig.Builder#configurationLease(Duration)}; keep it above {@link #maxWait(Duration)}.
     */
    public Builder configurationLease(Duration lease) {
      this.configurationLease = Checks.configurationLease(lease, TokenBucketConfig.MAX_CONFIGURATION_LEASE);
      return this;
    }

    /**
     * How the shared bucket's rate follows the provider's 429s; default {@link RateAdaptation#defaults()}; null to
     * keep the configured rate whatever the provider answers.
     */
    public Builder rateAdaptation(RateAdaptation adaptation) {
      this.rateAdaptation = adaptation;
      return this;
    }

    /** The class of calls made without one; default {@link Priority#INTERACTIVE}. */
    public Builder defaultPriority(Priority priority) {
      this.defaultPriority = Objects.requireNonNull(priority, "defaultPriority cannot be null");
      return this;
    }

    /**
     * The header by which the provider's own 429s are known (e.g. {@code RateLimit}, which the mock sends); default
     * none: every 429 counts. A 429 without it (a gateway's, a WAF's) neither cuts the fleet's rate nor holds it. See
     * {@link ThrottlingInterceptor.Builder#quotaSignal(String)}.
     */
    public Builder quotaSignal(String header) {
      this.quotaSignal = header == null ? null : Checks.headerName("quotaSignal", header);
      return this;
    }

    /**
     * How far ahead a {@link Priority#BATCH} call may book its slot; default 0 (only a slot free now: an interactive
     * call then waits behind batch work for at most one slot). At most a day.
     */
    public Builder batchHorizon(Duration horizon) {
      this.batchHorizon = Checks.notNegativeAtMostADay("batchHorizon", horizon);
      return this;
    }

    /**
     * @throws IllegalStateException when baseUrl or credentials are missing, or when maxWait is not shorter than
     *     callTimeout (the call timeout counts the wait for the slot: a longer max wait would be cut to it)
     */
    public PixClientConfig build() {
      if (baseUrl == null) {
        throw new IllegalStateException("baseUrl is required");
      }
      if (clientId == null) {
        throw new IllegalStateException("credentials are required");
      }
      if (maxWait.compareTo(callTimeout) >= 0) {
        throw new IllegalStateException(maxWaitAboveCallTimeout(maxWait, callTimeout));
      }
      return new PixClientConfig(this);
    }
  }
}
