package io.pixquota.bacen.pix;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.QuotaHeaders;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link PixClient}, in four parts: the {@link #provider() provider} (URLs, credentials, call timeout),
 * the {@link #bucket() shared bucket} and its Redis, the {@link #throttling() wait} for slots, and the
 * {@link #retry() retry}. Build with {@link #builder()}, whose setters cover every part, or read from environment
 * variables with {@link #fromEnvironment()}. Immutable; {@link #toString()} never shows the client secret nor the
 * Redis password.
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
  /** Default {@link Builder#quotaSignal}: {@value}, the header the mock and IETF-style providers send. */
  public static final String DEFAULT_QUOTA_SIGNAL = "RateLimit";

  private final ProviderSettings provider;
  private final SharedBucketSettings bucket;
  private final ThrottleSettings throttling;
  private final RetrySettings retry;

  private PixClientConfig(Builder b) {
    this.provider = new ProviderSettings(b.baseUrl, b.tokenUrl != null ? b.tokenUrl
        : b.baseUrl.resolve("/oauth/token"), b.clientId, b.clientSecret, b.callTimeout, b.throttleTokenCalls);
    this.bucket = new SharedBucketSettings(b.bucketName, b.bucketCapacity, b.bucketRate, b.redisUrl, b.redisTimeout,
        b.configurationLease, b.rateAdaptation, b.redisUnavailable, b.localShare);
    Duration providerTimeout = ThrottleSettings.providerTimeout(b.providerTimeout, b.callTimeout);
    this.throttling = new ThrottleSettings(b.maxWait, b.defaultPriority, b.batchHorizon, b.quotaSignal, b.maxInFlight,
        b.maxInFlight == 0 ? null : b.permitLease != null ? b.permitLease
            : b.maxWait.plus(providerTimeout).plusSeconds(5), b.quotaHeaders, providerTimeout);
    this.retry = b.retry;
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
   * /oauth/token on the base URL's host), {@code BACEN_CLIENT_ID}*, {@code BACEN_CLIENT_SECRET}*, {@code REDIS_URL},
   * {@code BACEN_BUCKET_NAME} (pix), {@code BACEN_BUCKET_CAPACITY} (8), {@code BACEN_BUCKET_RATE} (9 per second),
   * {@code BACEN_MAX_WAIT_MS} (10000), {@code BACEN_CALL_TIMEOUT_MS} (30000), {@code BACEN_REDIS_TIMEOUT_MS} (1000),
   * {@code BACEN_RETRY_MAX_ATTEMPTS} (3), {@code BACEN_RETRY_INITIAL_BACKOFF_MS} (200),
   * {@code BACEN_RETRY_MAX_BACKOFF_MS} (5000), {@code BACEN_RETRY_MAX_TOTAL_MS} (15000),
   * {@code BACEN_REDIS_UNAVAILABLE} (FAIL_CLOSED or LOCAL_FALLBACK), {@code BACEN_LOCAL_SHARE} (0.5),
   * {@code BACEN_CONFIGURATION_LEASE_MS} (30000), {@code BACEN_RATE_ADAPTATION} (on or off; default on),
   * {@code BACEN_DEFAULT_PRIORITY} (INTERACTIVE or BATCH), {@code BACEN_BATCH_HORIZON_MS} (0),
   * {@code BACEN_QUOTA_SIGNAL} (a header name; none: every 429 counts), {@code BACEN_MAX_IN_FLIGHT} (0: no cap),
   * {@code BACEN_PERMIT_LEASE_MS} (max wait + call timeout + 5 s), {@code BACEN_QUOTA_HEADERS} ({@code IETF} or
   * {@code X_RATELIMIT}; none: not read).
   *
   * @throws IllegalArgumentException naming the variable and its value when one is missing or malformed
   */
  public static PixClientConfig fromEnvironment(Map<String, String> env) {
    return PixEnvironment.read(env);
  }

  /** Where the provider is and how to talk to it: URLs, credentials, call timeout. */
  public ProviderSettings provider() {
    return provider;
  }

  /** The shared bucket and its Redis. */
  public SharedBucketSettings bucket() {
    return bucket;
  }

  /** How calls wait for their slots: max wait, default class, batch horizon, quota signal. */
  public ThrottleSettings throttling() {
    return throttling;
  }

  /** The retry of 429, 503 and I/O errors. */
  public RetrySettings retry() {
    return retry;
  }

  /** Never shows the client secret nor Redis's password. */
  @Override
  public String toString() {
    return "PixClientConfig{" + provider + ", " + bucket + ", " + throttling + ", " + retry + "}";
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
    Duration maxWait = Throttle.DEFAULT_MAX_WAIT;
    Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    private Duration redisTimeout = TokenBucketConfig.DEFAULT_REDIS_TIMEOUT;
    RetrySettings retry = new RetrySettings(DEFAULT_RETRY_MAX_ATTEMPTS, DEFAULT_RETRY_INITIAL_BACKOFF,
        DEFAULT_RETRY_MAX_BACKOFF, DEFAULT_RETRY_MAX_TOTAL);
    RedisUnavailablePolicy redisUnavailable = RedisUnavailablePolicy.FAIL_CLOSED;
    double localShare = Throttle.DEFAULT_LOCAL_SHARE;
    private boolean throttleTokenCalls;
    private Duration configurationLease = TokenBucketConfig.DEFAULT_CONFIGURATION_LEASE;
    RateAdaptation rateAdaptation = RateAdaptation.defaults();
    private Priority defaultPriority = Priority.INTERACTIVE;
    private Duration batchHorizon = Duration.ZERO;
    private int maxInFlight;
    private Duration permitLease;
    private Duration providerTimeout;
    private String quotaSignal = DEFAULT_QUOTA_SIGNAL;
    private QuotaHeaders quotaHeaders;

    private Builder() {}

    /**
     * Where the provider serves API Pix, used as given: {@code pix/{e2eid}} and {@code cob/{txid}} resolve below its
     * path, e.g. {@code https://pix.example.com/api/v2/} (BACEN's OpenAPI) or {@code https://api.psp.com.br/v2/}
     * (a '/' is added to a path without one, so that {@code .../v2} means {@code .../v2/}).
     */
    public Builder baseUrl(URI baseUrl) {
      this.baseUrl = ProviderSettings.baseUrl(baseUrl);
      return this;
    }

    /**
     * The OAuth2 token endpoint; default {@code /oauth/token} on the base URL's host (the mock's). Providers put it
     * where they like (often another host): set it.
     */
    public Builder tokenUrl(URI tokenUrl) {
      this.tokenUrl = ProviderSettings.httpUrl("tokenUrl", tokenUrl);
      return this;
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
      this.retry = new RetrySettings(maxAttempts, initialBackoff, maxBackoff, maxTotal);
      return this;
    }

    /**
     * What to do while Redis is unavailable, and the local share for LOCAL_FALLBACK; default FAIL_CLOSED and
     * {@value Throttle#DEFAULT_LOCAL_SHARE}.
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
     * The header by which the provider's own 429s are known; default {@value #DEFAULT_QUOTA_SIGNAL}, which the mock and
     * IETF-style providers send on every answer. A 429 without it (a gateway's, a WAF's, a proxy's in front of one
     * replica) neither cuts the fleet's rate nor holds it, so one replica's broken path cannot slow the others. For
     * a provider that sends no such header on its 429s: null, and every 429 counts (one replica's reports are then
     * bounded by corroboration only). See {@link io.pixquota.throttle.ThrottleBuilder#quotaSignal(String)}.
     */
    public Builder quotaSignal(String header) {
      this.quotaSignal = header == null ? null : Checks.headerName("quotaSignal", header);
      return this;
    }

    /**
     * The header family the provider states its remaining quota in ({@code RateLimit} for the mock and IETF-style
     * providers); read on every answer, it lowers the shared bucket when the provider has fewer left than the bucket
     * expected, and never raises it. Default null: not read. See
     * {@link io.pixquota.throttle.ThrottleBuilder#quotaHeaders(QuotaHeaders)}.
     */
    public Builder quotaHeaders(QuotaHeaders family) {
      this.quotaHeaders = family;
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
     * Calls in flight at once for the whole fleet (BACEN's SPI: 6): each takes a permit of a pool beside the bucket
     * with its slot, in the same round trip, and gives it back with its answer; default 0: no cap. At most 100000.
     */
    public Builder maxInFlight(int max) {
      if (max < 0 || max > 100_000) {
        throw new IllegalArgumentException("maxInFlight must be within 0..100000, but was " + max);
      }
      this.maxInFlight = max;
      return this;
    }

    /**
     * How long a permit lasts when its holder dies; default max wait + provider timeout + 5 s, and longer than the
     * two.
     */
    public Builder permitLease(Duration lease) {
      this.permitLease = Checks.positiveAtMostADay("permitLease", lease);
      return this;
    }

    /**
     * How long the provider may keep working on a call after it was sent (its own timeout): with
     * {@link #maxInFlight}, a call that times out, is cancelled or loses its connection after its send keeps its
     * permit this long after the send, because the provider still counts it. Default: the call timeout or 30 s,
     * whichever is longer. At most a day.
     */
    public Builder providerTimeout(Duration timeout) {
      this.providerTimeout = Checks.positiveAtMostADay("providerTimeout", timeout);
      return this;
    }

    /**
     * @throws IllegalStateException when baseUrl or credentials are missing, when maxWait is not shorter than
     *     callTimeout (the call timeout counts the wait for the slot: a longer max wait would be cut to it), or when
     *     a permit's lease would not outlast a call's wait and the provider's timeout
     */
    public PixClientConfig build() {
      if (baseUrl == null) {
        throw new IllegalStateException("baseUrl is required");
      }
      if (clientId == null) {
        throw new IllegalStateException("credentials are required");
      }
      if (maxWait.compareTo(callTimeout) >= 0) {
        throw new IllegalStateException(ThrottleSettings.maxWaitAboveCallTimeout(maxWait, callTimeout));
      }
      if (maxInFlight > 0 && permitLease != null) {
        ThrottleSettings.checkLease(permitLease, maxWait, ThrottleSettings.providerTimeout(providerTimeout,
            callTimeout));
      }
      return new PixClientConfig(this);
    }
  }
}
