package io.pixquota.bacen.pix;

import io.pixquota.bacen.RedisUnavailablePolicy;
import io.pixquota.bacen.internal.Checks;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link PixClient}: the provider, the credentials, the shared bucket and the retry. Build with
 * {@link #builder()} or read from environment variables with {@link #fromEnvironment()} (the variables are listed
 * there and in {@code docs/configuration.md}). {@link #toString()} never shows the client secret.
 */
public final class PixClientConfig {
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

  private PixClientConfig(Builder b) {
    this.baseUrl = b.baseUrl;
    this.tokenUrl = b.tokenUrl != null ? b.tokenUrl : b.baseUrl.resolve("/oauth/token");
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
   * base URL + /oauth/token), {@code BACEN_CLIENT_ID}*, {@code BACEN_CLIENT_SECRET}*, {@code REDIS_URL},
   * {@code BACEN_BUCKET_NAME} (pix), {@code BACEN_BUCKET_CAPACITY} (8), {@code BACEN_BUCKET_RATE} (9 per second),
   * {@code BACEN_MAX_WAIT_MS} (10000), {@code BACEN_CALL_TIMEOUT_MS} (30000), {@code BACEN_REDIS_TIMEOUT_MS} (1000),
   * {@code BACEN_RETRY_MAX_ATTEMPTS} (3), {@code BACEN_RETRY_INITIAL_BACKOFF_MS} (200),
   * {@code BACEN_RETRY_MAX_BACKOFF_MS} (5000), {@code BACEN_RETRY_MAX_TOTAL_MS} (15000),
   * {@code BACEN_REDIS_UNAVAILABLE} (FAIL_CLOSED or LOCAL_FALLBACK), {@code BACEN_LOCAL_SHARE} (0.5).
   *
   * @throws IllegalArgumentException naming the variable and its value when one is missing or malformed
   */
  public static PixClientConfig fromEnvironment(Map<String, String> env) {
    Builder b = builder();
    b.baseUrl(URI.create(required(env, "BACEN_BASE_URL")));
    optional(env, "BACEN_TOKEN_URL", v -> b.tokenUrl(URI.create(v)));
    b.credentials(required(env, "BACEN_CLIENT_ID"), required(env, "BACEN_CLIENT_SECRET"));
    optional(env, "REDIS_URL", b::redisUrl);
    optional(env, "BACEN_BUCKET_NAME", b::bucketName);
    double capacity = number(env, "BACEN_BUCKET_CAPACITY", b.bucketCapacity);
    double rate = number(env, "BACEN_BUCKET_RATE", b.bucketRate);
    wrap("BACEN_BUCKET_CAPACITY", env, () -> b.bucket(capacity, b.bucketRate));
    wrap("BACEN_BUCKET_RATE", env, () -> b.bucket(capacity, rate));
    optional(env, "BACEN_MAX_WAIT_MS", v -> b.maxWait(millis(env, "BACEN_MAX_WAIT_MS")));
    optional(env, "BACEN_CALL_TIMEOUT_MS", v -> b.callTimeout(millis(env, "BACEN_CALL_TIMEOUT_MS")));
    optional(env, "BACEN_REDIS_TIMEOUT_MS", v -> b.redisTimeout(millis(env, "BACEN_REDIS_TIMEOUT_MS")));
    int attempts = (int) number(env, "BACEN_RETRY_MAX_ATTEMPTS", b.retryMaxAttempts);
    wrap("BACEN_RETRY_MAX_ATTEMPTS", env, () -> b.retry(attempts, b.retryInitialBackoff, b.retryMaxBackoff,
        b.retryMaxTotal));
    Duration initial = env.containsKey("BACEN_RETRY_INITIAL_BACKOFF_MS")
        ? millis(env, "BACEN_RETRY_INITIAL_BACKOFF_MS") : b.retryInitialBackoff;
    Duration max = env.containsKey("BACEN_RETRY_MAX_BACKOFF_MS")
        ? millis(env, "BACEN_RETRY_MAX_BACKOFF_MS") : b.retryMaxBackoff;
    Duration total = env.containsKey("BACEN_RETRY_MAX_TOTAL_MS")
        ? millis(env, "BACEN_RETRY_MAX_TOTAL_MS") : b.retryMaxTotal;
    wrap("BACEN_RETRY_*_MS", env, () -> b.retry(attempts, initial, max, total));
    RedisUnavailablePolicy policy = b.redisUnavailable;
    if (env.containsKey("BACEN_REDIS_UNAVAILABLE")) {
      String v = env.get("BACEN_REDIS_UNAVAILABLE").trim().toUpperCase(Locale.ROOT);
      try {
        policy = RedisUnavailablePolicy.valueOf(v);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("BACEN_REDIS_UNAVAILABLE must be FAIL_CLOSED or LOCAL_FALLBACK, but was '"
            + env.get("BACEN_REDIS_UNAVAILABLE") + "'");
      }
    }
    double share = number(env, "BACEN_LOCAL_SHARE", b.localShare);
    RedisUnavailablePolicy chosen = policy;
    wrap("BACEN_LOCAL_SHARE", env, () -> b.redisUnavailable(chosen, share));
    return b.build();
  }

  private static String required(Map<String, String> env, String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(name + " must be set, but was " + (v == null ? "missing" : "blank"));
    }
    return v.trim();
  }

  private static void optional(Map<String, String> env, String name, java.util.function.Consumer<String> use) {
    String v = env.get(name);
    if (v == null) {
      return;
    }
    try {
      use.accept(v.trim());
    } catch (IllegalArgumentException e) {
      if (String.valueOf(e.getMessage()).startsWith(name)) {
        throw e; // already names the variable
      }
      String shown = name.equals("REDIS_URL") ? redactRedis(v) : v; // a Redis URL may carry a password
      throw new IllegalArgumentException(name + " is invalid, was '" + shown + "': " + e.getMessage(), e);
    }
  }

  private static double number(Map<String, String> env, String name, double fallback) {
    String v = env.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return Double.parseDouble(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a number, but was '" + v + "'");
    }
  }

  private static Duration millis(Map<String, String> env, String name) {
    String v = env.get(name);
    try {
      return Duration.ofMillis(Long.parseLong(v.trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number of milliseconds, but was '" + v + "'");
    }
  }

  private static void wrap(String name, Map<String, String> env, Runnable r) {
    try {
      r.run();
    } catch (IllegalArgumentException e) {
      String shown = name.contains("*") ? "" : ", was '" + env.get(name) + "'";
      throw new IllegalArgumentException(name + " is invalid" + shown + ": " + e.getMessage(), e);
    }
  }

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

  @Override
  public String toString() {
    return "PixClientConfig{baseUrl=" + baseUrl + ", tokenUrl=" + tokenUrl + ", clientId=" + clientId
        + ", clientSecret=****, redis=" + (redisUrl == null ? "none" : redactRedis(redisUrl)) + ", bucket="
        + bucketName + " (" + bucketCapacity + ", " + bucketRate + "/s), maxWait=" + maxWait + ", callTimeout="
        + callTimeout + ", retry=" + retryMaxAttempts + " attempts within " + retryMaxTotal + ", redisUnavailable="
        + redisUnavailable + "}";
  }

  /** A Redis URL without its password. */
  static String redactRedis(String url) {
    try {
      URI u = URI.create(url);
      return u.getScheme() + "://" + (u.getUserInfo() != null ? "****@" : "") + u.getHost()
          + (u.getPort() > 0 ? ":" + u.getPort() : "");
    } catch (IllegalArgumentException e) {
      return "****";
    }
  }

  /** Builds a {@link PixClientConfig}; setters validate at once, {@link #build()} checks what is required. */
  public static final class Builder {
    private URI baseUrl;
    private URI tokenUrl;
    private String clientId;
    private String clientSecret;
    private String redisUrl;
    private String bucketName = "pix";
    private double bucketCapacity = 8;
    private double bucketRate = 9;
    private Duration maxWait = Duration.ofSeconds(10);
    private Duration callTimeout = Duration.ofSeconds(30);
    private Duration redisTimeout = Duration.ofSeconds(1);
    private int retryMaxAttempts = 3;
    private Duration retryInitialBackoff = Duration.ofMillis(200);
    private Duration retryMaxBackoff = Duration.ofSeconds(5);
    private Duration retryMaxTotal = Duration.ofSeconds(15);
    private RedisUnavailablePolicy redisUnavailable = RedisUnavailablePolicy.FAIL_CLOSED;
    private double localShare = 0.5;
    private boolean throttleTokenCalls;

    private Builder() {}

    /** The API's base URL, e.g. {@code https://pix.example.com}; paths {@code /api/v2/...} are resolved on it. */
    public Builder baseUrl(URI baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl cannot be null");
      if (!"http".equals(baseUrl.getScheme()) && !"https".equals(baseUrl.getScheme())) {
        throw new IllegalArgumentException("baseUrl must be http or https, but was '" + baseUrl + "'");
      }
      this.baseUrl = baseUrl;
      return this;
    }

    /** The OAuth2 token endpoint; default base URL + {@code /oauth/token}. */
    public Builder tokenUrl(URI tokenUrl) {
      this.tokenUrl = Objects.requireNonNull(tokenUrl, "tokenUrl cannot be null");
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
      Checks.notBlank("redisUrl", redisUrl);
      if (!redisUrl.startsWith("redis://") && !redisUrl.startsWith("rediss://")) {
        throw new IllegalArgumentException("redisUrl must start with redis:// or rediss://, but was '"
            + redactRedis(redisUrl) + "'");
      }
      this.redisUrl = redisUrl;
      return this;
    }

    /** The shared bucket's name; every replica of one integrator must use the same. Default {@code pix}. */
    public Builder bucketName(String name) {
      this.bucketName = Checks.notBlank("bucketName", name);
      return this;
    }

    /** Burst and refill of the shared bucket, a little under the provider's quota; default 8 and 9 per second. */
    public Builder bucket(double capacity, double refillPerSecond) {
      this.bucketCapacity = Checks.positive("capacity", capacity);
      this.bucketRate = Checks.positive("refillPerSecond", refillPerSecond);
      return this;
    }

    /** The longest a call waits for its slot; default 10 s. */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = Checks.notNegative("maxWait", maxWait);
      return this;
    }

    /** OkHttp's call timeout for one attempt, wait for the slot included; default 30 s. */
    public Builder callTimeout(Duration timeout) {
      this.callTimeout = Checks.positive("callTimeout", timeout);
      return this;
    }

    /** How long to wait for Redis's answer; default 1 s. */
    public Builder redisTimeout(Duration timeout) {
      this.redisTimeout = Checks.positive("redisTimeout", timeout);
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
      this.retryMaxAttempts = maxAttempts;
      this.retryInitialBackoff = Checks.positive("initialBackoff", initialBackoff);
      this.retryMaxBackoff = Checks.positive("maxBackoff", maxBackoff);
      this.retryMaxTotal = Checks.positive("maxTotal", maxTotal);
      if (maxBackoff.compareTo(initialBackoff) < 0) {
        throw new IllegalArgumentException("maxBackoff must be >= initialBackoff " + initialBackoff + ", but was "
            + maxBackoff);
      }
      return this;
    }

    /** What to do while Redis is unavailable, and the local share for LOCAL_FALLBACK; default FAIL_CLOSED. */
    public Builder redisUnavailable(RedisUnavailablePolicy policy, double localShare) {
      this.redisUnavailable = Objects.requireNonNull(policy, "policy cannot be null");
      if (!(localShare > 0) || localShare > 1) {
        throw new IllegalArgumentException("localShare must be > 0 and <= 1, but was " + localShare);
      }
      this.localShare = localShare;
      return this;
    }

    /** Whether token requests also take a slot in the bucket (for providers that count them); default false. */
    public Builder throttleTokenCalls(boolean throttle) {
      this.throttleTokenCalls = throttle;
      return this;
    }

    /**
     * @throws IllegalStateException when baseUrl or credentials are missing
     */
    public PixClientConfig build() {
      if (baseUrl == null) {
        throw new IllegalStateException("baseUrl is required");
      }
      if (clientId == null) {
        throw new IllegalStateException("credentials are required");
      }
      return new PixClientConfig(this);
    }
  }
}
