package io.pixquota.bacen.pix;

import java.time.Duration;
import java.util.Map;

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
  /** Default quota signal ({@link PixClientConfigBuilder#quotaSignal}): {@value}, as the mock and IETF drafts. */
  public static final String DEFAULT_QUOTA_SIGNAL = "RateLimit";

  private final ProviderSettings provider;
  private final SharedBucketSettings bucket;
  private final ThrottleSettings throttling;
  private final RetrySettings retry;

  PixClientConfig(PixClientConfigBuilder b) {
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

  public static PixClientConfigBuilder builder() {
    return new PixClientConfigBuilder();
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
}
