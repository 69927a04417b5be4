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
import java.util.Objects;

/**
 * Builds a {@link PixClientConfig} ({@link PixClientConfig#builder()}); setters validate at once, {@link #build()}
 * checks what is required.
 */
public final class PixClientConfigBuilder {
  URI baseUrl;
  URI tokenUrl;
  String clientId;
  String clientSecret;
  String redisUrl;
  String bucketName = PixClientConfig.DEFAULT_BUCKET_NAME;
  double bucketCapacity = PixClientConfig.DEFAULT_BUCKET_CAPACITY;
  double bucketRate = PixClientConfig.DEFAULT_BUCKET_RATE;
  Duration maxWait = Throttle.DEFAULT_MAX_WAIT;
  Duration callTimeout = PixClientConfig.DEFAULT_CALL_TIMEOUT;
  Duration redisTimeout = TokenBucketConfig.DEFAULT_REDIS_TIMEOUT;
  RetrySettings retry = new RetrySettings(PixClientConfig.DEFAULT_RETRY_MAX_ATTEMPTS,
      PixClientConfig.DEFAULT_RETRY_INITIAL_BACKOFF, PixClientConfig.DEFAULT_RETRY_MAX_BACKOFF,
      PixClientConfig.DEFAULT_RETRY_MAX_TOTAL);
  RedisUnavailablePolicy redisUnavailable = RedisUnavailablePolicy.FAIL_CLOSED;
  double localShare = Throttle.DEFAULT_LOCAL_SHARE;
  boolean throttleTokenCalls;
  Duration configurationLease = TokenBucketConfig.DEFAULT_CONFIGURATION_LEASE;
  RateAdaptation rateAdaptation = RateAdaptation.defaults();
  Priority defaultPriority = Priority.INTERACTIVE;
  Duration batchHorizon = Duration.ZERO;
  int maxInFlight;
  Duration permitLease;
  Duration providerTimeout;
  String quotaSignal = PixClientConfig.DEFAULT_QUOTA_SIGNAL;
  QuotaHeaders quotaHeaders;

  PixClientConfigBuilder() {}

  /**
   * Where the provider serves API Pix, used as given: {@code pix/{e2eid}} and {@code cob/{txid}} resolve below its
   * path, e.g. {@code https://pix.example.com/api/v2/} (BACEN's OpenAPI) or {@code https://api.psp.com.br/v2/}
   * (a '/' is added to a path without one, so that {@code .../v2} means {@code .../v2/}).
   */
  public PixClientConfigBuilder baseUrl(URI baseUrl) {
    this.baseUrl = ProviderSettings.baseUrl(baseUrl);
    return this;
  }

  /**
   * The OAuth2 token endpoint; default {@code /oauth/token} on the base URL's host (the mock's). Providers put it
   * where they like (often another host): set it.
   */
  public PixClientConfigBuilder tokenUrl(URI tokenUrl) {
    this.tokenUrl = ProviderSettings.httpUrl("tokenUrl", tokenUrl);
    return this;
  }

  /** OAuth2 client credentials: the integrator's client id and secret. */
  public PixClientConfigBuilder credentials(String clientId, String clientSecret) {
    this.clientId = Checks.notBlank("clientId", clientId);
    Objects.requireNonNull(clientSecret, "clientSecret cannot be null");
    if (clientSecret.isBlank()) {
      throw new IllegalArgumentException("clientSecret must not be blank");
    }
    this.clientSecret = clientSecret;
    return this;
  }

  /** Redis for the shared bucket, used when the client is created without a RedissonClient. */
  public PixClientConfigBuilder redisUrl(String redisUrl) {
    RedisAddress.parse(redisUrl);
    this.redisUrl = redisUrl.trim();
    return this;
  }

  /**
   * The shared bucket's name; every replica of one integrator must use the same. Default {@value
   * PixClientConfig#DEFAULT_BUCKET_NAME}; no '{' or '}' (the key's cluster hash tag).
   */
  public PixClientConfigBuilder bucketName(String name) {
    this.bucketName = TokenBucketConfig.custom(Checks.notBlank("bucketName", name)).limit(1, 1).build().name();
    return this;
  }

  /**
   * Burst and refill of the shared bucket, a little under the provider's quota; default 8 and 9 per second. The
   * capacity is at least 1, the cost of one call.
   */
  public PixClientConfigBuilder bucket(double capacity, double refillPerSecond) {
    Limit limit = Limit.of(capacity, refillPerSecond);
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, the cost of one call, but was " + capacity);
    }
    this.bucketCapacity = limit.capacity();
    this.bucketRate = limit.refillPerSecond();
    return this;
  }

  /** The longest a call waits for its slot; default 10 s. Shorter than {@link #callTimeout}, which counts it. */
  public PixClientConfigBuilder maxWait(Duration maxWait) {
    this.maxWait = Checks.notNegativeAtMostADay("maxWait", maxWait);
    return this;
  }

  /** OkHttp's call timeout for one attempt, wait for the slot included; default 30 s. */
  public PixClientConfigBuilder callTimeout(Duration timeout) {
    this.callTimeout = Checks.positiveAtMostADay("callTimeout", timeout);
    return this;
  }

  /** How long to wait for Redis's answer; default 1 s. */
  public PixClientConfigBuilder redisTimeout(Duration timeout) {
    this.redisTimeout = Checks.positiveAtMostADay("redisTimeout", timeout);
    return this;
  }

  /**
   * Retry of 429, 503 and I/O errors: at most {@code maxAttempts} attempts in all (1 = no retry), waiting
   * max(Retry-After rounded up, a random backoff in [0, min(maxBackoff, initialBackoff x 2^n)]), giving up when
   * the next wait would pass {@code maxTotal} since the first attempt. Defaults: 3, 200 ms, 5 s, 15 s.
   */
  public PixClientConfigBuilder retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff,
      Duration maxTotal) {
    this.retry = new RetrySettings(maxAttempts, initialBackoff, maxBackoff, maxTotal);
    return this;
  }

  /**
   * What to do while Redis is unavailable, and the local share for LOCAL_FALLBACK; default FAIL_CLOSED and
   * {@value Throttle#DEFAULT_LOCAL_SHARE}.
   */
  public PixClientConfigBuilder redisUnavailable(RedisUnavailablePolicy policy, double localShare) {
    this.redisUnavailable = Objects.requireNonNull(policy, "policy cannot be null");
    this.localShare = Checks.share("localShare", localShare);
    return this;
  }

  /** Whether token requests also take a slot in the bucket (for providers that count them); default false. */
  public PixClientConfigBuilder throttleTokenCalls(boolean throttle) {
    this.throttleTokenCalls = throttle;
    return this;
  }

  /**
   * How long a configuration of the shared bucket keeps counting after its last use; default 30 s. See
   * {@link TokenBucketConfig.Builder#configurationLease(Duration)}; keep it above {@link #maxWait(Duration)}.
   */
  public PixClientConfigBuilder configurationLease(Duration lease) {
    this.configurationLease = Checks.configurationLease(lease, TokenBucketConfig.MAX_CONFIGURATION_LEASE);
    return this;
  }

  /**
   * How the shared bucket's rate follows the provider's 429s; default {@link RateAdaptation#defaults()}; null to
   * keep the configured rate whatever the provider answers.
   */
  public PixClientConfigBuilder rateAdaptation(RateAdaptation adaptation) {
    this.rateAdaptation = adaptation;
    return this;
  }

  /** The class of calls made without one; default {@link Priority#INTERACTIVE}. */
  public PixClientConfigBuilder defaultPriority(Priority priority) {
    this.defaultPriority = Objects.requireNonNull(priority, "defaultPriority cannot be null");
    return this;
  }

  /**
   * The header by which the provider's own 429s are known; default {@value PixClientConfig#DEFAULT_QUOTA_SIGNAL}, which
   * the mock and IETF-style providers send on every answer. A 429 without it (a gateway's, a WAF's, a proxy's in front
   * of one replica) neither cuts the fleet's rate nor holds it, so one replica's broken path cannot slow the others.
   * For a provider that sends no such header on its 429s: null, and every 429 counts (one replica's reports are then
   * bounded by corroboration only). See {@link io.pixquota.throttle.ThrottleBuilder#quotaSignal(String)}.
   */
  public PixClientConfigBuilder quotaSignal(String header) {
    this.quotaSignal = header == null ? null : Checks.headerName("quotaSignal", header);
    return this;
  }

  /**
   * The header family the provider states its remaining quota in ({@code RateLimit} for the mock and IETF-style
   * providers); read on every answer, it lowers the shared bucket when the provider has fewer left than the bucket
   * expected, and never raises it. Default null: not read. See
   * {@link io.pixquota.throttle.ThrottleBuilder#quotaHeaders(QuotaHeaders)}.
   */
  public PixClientConfigBuilder quotaHeaders(QuotaHeaders family) {
    this.quotaHeaders = family;
    return this;
  }

  /**
   * How far ahead a {@link Priority#BATCH} call may book its slot; default 0 (only a slot free now: an interactive
   * call then waits behind batch work for at most one slot). At most a day.
   */
  public PixClientConfigBuilder batchHorizon(Duration horizon) {
    this.batchHorizon = Checks.notNegativeAtMostADay("batchHorizon", horizon);
    return this;
  }

  /**
   * Calls in flight at once for the whole fleet (BACEN's SPI: 6): each takes a permit of a pool beside the bucket
   * with its slot, in the same round trip, and gives it back with its answer; default 0: no cap. At most 100000.
   */
  public PixClientConfigBuilder maxInFlight(int max) {
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
  public PixClientConfigBuilder permitLease(Duration lease) {
    this.permitLease = Checks.positiveAtMostADay("permitLease", lease);
    return this;
  }

  /**
   * How long the provider may keep working on a call after it was sent (its own timeout): with
   * {@link #maxInFlight}, a call that times out, is cancelled or loses its connection after its send keeps its
   * permit this long after the send, because the provider still counts it. Default: the call timeout or 30 s,
   * whichever is longer. At most a day.
   */
  public PixClientConfigBuilder providerTimeout(Duration timeout) {
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
