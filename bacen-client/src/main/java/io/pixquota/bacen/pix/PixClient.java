package io.pixquota.bacen.pix;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.pixquota.bacen.RedisTokenBucket;
import io.pixquota.bacen.ThrottleRefusedException;
import io.pixquota.bacen.ThrottleUnavailableException;
import io.pixquota.bacen.ThrottlingInterceptor;
import io.pixquota.bacen.TokenBucket;
import io.pixquota.bacen.TokenBucketConfig;
import io.pixquota.bacen.internal.OAuthTokenSource;
import io.pixquota.bacen.internal.RetryAfter;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okio.BufferedSource;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * A typed API Pix client whose every call takes a slot in the shared token bucket first.
 *
 * <pre>{@code
 * PixClient pix = PixClient.builder(PixClientConfig.fromEnvironment()).redisson(redisson).build();
 * Pix p = pix.getPix("E12345678202611301200ABCDEFGHIJK");
 * }</pre>
 *
 * <p>Blocking methods; ids are validated before any I/O. Provider 429 and 503 and I/O errors are retried (GETs only,
 * each retry through the bucket again); what is left becomes a {@link PixException}. This class is threadsafe;
 * share one instance.
 */
public final class PixClient implements AutoCloseable {
  /** Bodies larger than this are not read: 1 MiB, far above any Pix (a few KB with its devoluções). */
  static final long MAX_BODY_BYTES = 1024 * 1024;

  private final PixClientConfig config;
  private final HttpUrl baseUrl;
  private final OkHttpClient http;
  private final OkHttpClient unthrottledHttp;
  private final OAuthTokenSource tokens;
  private final ObjectMapper json;
  private final MeterRegistry registry;
  private final RedissonClient ownedRedisson;
  private final TokenBucket bucket;

  private PixClient(Builder b, RedissonClient redisson, TokenBucket bucket) {
    this.config = b.config;
    this.baseUrl = HttpUrl.get(config.baseUrl().toString());
    this.registry = b.registry != null ? b.registry : new CompositeMeterRegistry();
    this.ownedRedisson = b.redisson == null ? redisson : null;
    this.bucket = bucket;
    this.json = JsonMapper.builder().addModule(new JavaTimeModule())
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();
    ThrottlingInterceptor.Builder throttle = ThrottlingInterceptor.builder(bucket).maxWait(config.maxWait())
        .meterRegistry(registry);
    if (b.plan != null) {
      throttle.plan(b.plan);
    }
    if (config.redisUnavailable() == io.pixquota.bacen.RedisUnavailablePolicy.LOCAL_FALLBACK) {
      throttle.redisUnavailable(config.redisUnavailable(), config.localShare(), Duration.ofSeconds(1));
    }
    ThrottlingInterceptor interceptor = throttle.build();
    OkHttpClient base = b.okHttpClient != null ? b.okHttpClient : new OkHttpClient();
    OkHttpClient tokenHttp = config.throttleTokenCalls()
        ? base.newBuilder().addNetworkInterceptor(interceptor).build() : base;
    this.tokens = new OAuthTokenSource(tokenHttp, HttpUrl.get(config.tokenUrl().toString()), config.clientId(),
        config.clientSecret(), json, System::nanoTime);
    // A network interceptor: the slot is booked once OkHttp holds a connection, so a slow connection set-up cannot
    // make a call leave late and bunch with the next slots (measured: 1 x 429 per cold burst otherwise).
    this.http = base.newBuilder().callTimeout(config.callTimeout()).addNetworkInterceptor(interceptor).build();
    this.unthrottledHttp = base.newBuilder().callTimeout(config.callTimeout()).build();
  }

  /** A builder for a client with these settings. */
  public static Builder builder(PixClientConfig config) {
    return new Builder(config);
  }

  /**
   * {@code GET /api/v2/pix/{e2eid}}.
   *
   * @throws IllegalArgumentException for a malformed endToEndId, before any I/O
   * @throws PixNotFoundException     when the provider has no such Pix
   * @throws PixException             for the other failures (see its subclasses)
   */
  public Pix getPix(String endToEndId) {
    PixIds.checkEndToEndId(endToEndId);
    return call("getPix", "pix/" + endToEndId, body -> {
      Pix pix = json.treeToValue(body, Pix.class);
      if (pix.endToEndId() == null || pix.valor() == null) {
        throw new IOException("a Pix without endToEndId or valor");
      }
      return pix;
    });
  }

  /**
   * {@code GET /api/v2/cob/{txid}}.
   *
   * @throws IllegalArgumentException for a malformed txid, before any I/O
   * @throws PixNotFoundException     when the provider has no such charge
   * @throws PixException             for the other failures (see its subclasses)
   */
  public Cob getCob(String txid) {
    PixIds.checkTxid(txid);
    return call("getCob", "cob/" + txid, body -> {
      JsonNode status = body.get("status");
      if (status == null || !status.isTextual()) {
        throw new IOException("a charge without status");
      }
      CobStatus parsed;
      try {
        parsed = CobStatus.valueOf(status.asText());
      } catch (IllegalArgumentException e) {
        throw new IOException("unknown charge status", e);
      }
      JsonNode original = body.path("valor").path("original");
      return new Cob(body.path("txid").asText(null), parsed, body.path("revisao").asInt(),
          original.isMissingNode() || original.isNull() ? null : new BigDecimal(original.asText()),
          body.path("chave").asText(null));
    });
  }

  /**
   * Fetches the OAuth2 token and loads the bucket's script into Redis now, so that the first calls of a burst wait
   * for neither. Optional: calls do both when needed.
   *
   * @throws PixAccessDeniedException when the token endpoint refuses the credentials
   * @throws PixException             for the other failures
   */
  public void warmUp() {
    bearer();
    if (bucket instanceof RedisTokenBucket redisBucket) {
      try {
        redisBucket.preload();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new PixThrottledException("interrupted while loading the bucket's script", e);
      } catch (io.pixquota.bacen.BucketUnavailableException e) {
        throw new PixThrottledException("the shared bucket is unavailable", e);
      }
    }
  }

  private String bearer() {
    try {
      return tokens.get();
    } catch (OAuthTokenSource.TokenException e) {
      if (e.status() >= 500) {
        throw new PixUnavailableException("token endpoint failed", e.status(), null, null, e);
      }
      throw new PixAccessDeniedException("token endpoint refused the client credentials", e.status(), null, null, e);
    } catch (IOException e) {
      throw transport("token request failed", e);
    }
  }

  /**
   * {@code GET /policies/{policy}}: the provider's own limit for this integrator, as BACEN's DICT documents it (the
   * mock serves it too). Feed it to {@link io.pixquota.bacen.QuotaPlanner} to plan the bucket from the provider's
   * word instead of a guess. Not throttled: it is not a PIX query.
   *
   * @throws PixException when the provider does not serve the policy or answers something unreadable
   */
  public io.pixquota.bacen.ProviderPolicy getPolicy(String policy) {
    io.pixquota.bacen.internal.Checks.notBlank("policy", policy);
    if (!policy.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw new IllegalArgumentException("policy must be 1 to 64 letters, digits, '_', '.' or '-', but was '"
          + policy + "'");
    }
    HttpUrl url = baseUrl.resolve("/policies/" + policy);
    Request request = new Request.Builder().url(url).header("Authorization", "Bearer " + bearer()).get().build();
    try (Response response = unthrottledHttp.newCall(request).execute()) {
      JsonNode body = handle(response, node -> node, new CallState());
      String kind = body.path("kind").asText();
      double capacity = body.path("capacity").asDouble();
      double refill = body.path("refillTokens").asDouble();
      Duration period = Duration.ofMillis(body.path("refillPeriodMillis").asLong());
      return switch (kind) {
        case "BUCKET", "TOKEN_BUCKET" -> io.pixquota.bacen.ProviderPolicy.tokenBucket(capacity, refill, period);
        case "SLIDING", "SLIDING_WINDOW" -> io.pixquota.bacen.ProviderPolicy.slidingWindow(capacity, period);
        case "FIXED", "FIXED_WINDOW" -> io.pixquota.bacen.ProviderPolicy.fixedWindow(capacity, period);
        default -> throw new PixUnexpectedResponseException("unknown policy kind '" + kind + "'", 200, null, null,
            null);
      };
    } catch (IllegalArgumentException e) {
      throw new PixUnexpectedResponseException("unusable policy: " + e.getMessage(), 200, null, null, e);
    } catch (IOException e) {
      throw transport("policy request failed", e);
    }
  }

  @FunctionalInterface
  private interface Reader<T> {
    T read(JsonNode body) throws IOException;
  }

  /** Retry state of one call: when it started, how many attempts, what the next wait is. */
  private final class CallState {
    final long startNanos = System.nanoTime();
    int failures;
    long nextWaitMillis;
    Duration retryAfter;

    boolean shouldRetry(Throwable e) {
      boolean retriable = e instanceof PixRateLimitedException
          || (e instanceof PixUnavailableException u && u.status() == 503)
          || (e instanceof PixTransportException && !Thread.currentThread().isInterrupted());
      if (!retriable) {
        return false;
      }
      failures++;
      long cap = Math.min(config.retryMaxBackoff().toMillis(),
          config.retryInitialBackoff().toMillis() << Math.min(failures - 1, 20));
      long wait = ThreadLocalRandom.current().nextLong(cap + 1);
      if (retryAfter != null) {
        wait = Math.max(wait, retryAfter.toMillis());
      }
      long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
      if (elapsed + wait > config.retryMaxTotal().toMillis()) {
        return false;
      }
      nextWaitMillis = wait;
      return true;
    }
  }

  private <T> T call(String operation, String path, Reader<T> reader) {
    CallState state = new CallState();
    Retry retry = Retry.of("bacen-" + operation, RetryConfig.<T>custom()
        .maxAttempts(config.retryMaxAttempts())
        .retryOnException(state::shouldRetry)
        .intervalBiFunction((attempt, outcome) -> state.nextWaitMillis)
        .failAfterMaxAttempts(false)
        .build());
    Counter retries = Counter.builder("bacen.client.retries").description("Retries of provider calls")
        .tag("operation", operation).register(registry);
    retry.getEventPublisher().onRetry(e -> retries.increment());
    String status = "none";
    String outcome = "success";
    try {
      T result = Retry.decorateCheckedSupplier(retry, () -> attempt(path, reader, state)).get();
      status = "200";
      return result;
    } catch (PixException e) {
      status = e.status() > 0 ? Integer.toString(e.status()) : "none";
      outcome = outcomeOf(e);
      throw e;
    } catch (RuntimeException e) {
      outcome = "error";
      throw e;
    } catch (Throwable t) {
      outcome = "transport";
      throw new PixTransportException("call failed", t);
    } finally {
      Timer.builder("bacen.client.requests").description("API Pix calls, retries and waits included")
          .tag("operation", operation).tag("status", status).tag("outcome", outcome).register(registry)
          .record(System.nanoTime() - state.startNanos, TimeUnit.NANOSECONDS);
    }
  }

  private static String outcomeOf(PixException e) {
    String name = e.getClass().getSimpleName().replace("Pix", "").replace("Exception", "");
    return name.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }

  private <T> T attempt(String path, Reader<T> reader, CallState state) {
    state.retryAfter = null;
    HttpUrl url = baseUrl.resolve("/api/v2/" + path);
    boolean refreshed = false;
    while (true) {
      String bearer = bearer();
      Request request = new Request.Builder().url(url).header("Authorization", "Bearer " + bearer)
          .header("Accept", "application/json").get().build();
      try (Response response = http.newCall(request).execute()) {
        if (response.code() == 401 && !refreshed) {
          tokens.invalidate(bearer); // expired or revoked early: one fresh token, one more try
          refreshed = true;
          continue;
        }
        return handle(response, reader, state);
      } catch (IOException e) {
        throw transport("request failed", e);
      }
    }
  }

  private static PixException transport(String what, IOException e) {
    if (e instanceof ThrottleRefusedException || e instanceof ThrottleUnavailableException) {
      return new PixThrottledException("not sent: " + e.getMessage(), e);
    }
    // A call timeout is an InterruptedIOException too; a real interrupt left the thread's flag set, which
    // CallState.shouldRetry reads: no retry for an interrupted caller.
    return new PixTransportException(what + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
  }

  private <T> T handle(Response response, Reader<T> reader, CallState state) throws IOException {
    int code = response.code();
    String contentType = response.header("Content-Type", "");
    byte[] body = readCapped(response, code);
    if (code == 200) {
      if (!contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
        throw new PixUnexpectedResponseException("expected application/json, got '" + contentType + "'", code,
            null, null, null);
      }
      try {
        return reader.read(json.readTree(body));
      } catch (IOException | RuntimeException e) {
        throw new PixUnexpectedResponseException("unreadable body: " + e.getClass().getSimpleName(), code, null,
            null, e);
      }
    }
    String type = null;
    String correlationId = null;
    if (contentType.toLowerCase(Locale.ROOT).startsWith("application/problem+json")
        || contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      try {
        JsonNode problem = json.readTree(body);
        type = problem.path("type").asText(null);
        correlationId = problem.path("correlationId").asText(null);
      } catch (IOException e) {
        // a broken problem body still has its status: map by status alone
      }
    }
    Duration retryAfter = RetryAfter.parse(response.header("Retry-After"), Instant.now());
    state.retryAfter = retryAfter;
    switch (code) {
      case 400:
        throw new PixInvalidRequestException("invalid request", code, type, correlationId, null);
      case 401:
      case 403:
        throw new PixAccessDeniedException("access denied", code, type, correlationId, null);
      case 404:
        throw new PixNotFoundException("not found", code, type, correlationId, null);
      case 429:
        throw new PixRateLimitedException("rate limited by the provider", type, correlationId, retryAfter);
      default:
        if (code >= 500) {
          throw new PixUnavailableException("provider unavailable", code, type, correlationId, null);
        }
        throw new PixUnexpectedResponseException("unexpected status", code, type, correlationId, null);
    }
  }

  private static byte[] readCapped(Response response, int code) throws IOException {
    BufferedSource source = response.body().source();
    if (source.request(MAX_BODY_BYTES + 1)) {
      throw new PixUnexpectedResponseException("body larger than " + MAX_BODY_BYTES + " bytes; not read", code,
          null, null, null);
    }
    return source.getBuffer().readByteArray();
  }

  /** Shuts down the Redisson client this PixClient created, if it created one; a given one is left alone. */
  @Override
  public void close() {
    http.dispatcher().executorService().shutdown();
    http.connectionPool().evictAll();
    if (ownedRedisson != null) {
      ownedRedisson.shutdown();
    }
  }

  @Override
  public String toString() {
    return "PixClient{" + config + "}";
  }

  /** Builds a {@link PixClient}. */
  public static final class Builder {
    private final PixClientConfig config;
    private RedissonClient redisson;
    private TokenBucket bucket;
    private MeterRegistry registry;
    private OkHttpClient okHttpClient;
    private io.pixquota.bacen.QuotaPlan plan;

    private Builder(PixClientConfig config) {
      this.config = Objects.requireNonNull(config, "config cannot be null");
    }

    /** The Redisson client of the shared bucket; without one, the client creates its own from the config's URL. */
    public Builder redisson(RedissonClient redisson) {
      this.redisson = Objects.requireNonNull(redisson, "redisson cannot be null");
      return this;
    }

    /** Another bucket instead of the configured one (e.g. with several limits). */
    public Builder tokenBucket(TokenBucket bucket) {
      this.bucket = Objects.requireNonNull(bucket, "bucket cannot be null");
      return this;
    }

    /** Where the meters go; default none. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry cannot be null");
      return this;
    }

    /**
     * Uses a {@link io.pixquota.bacen.QuotaPlan}: its capacity and rate for the bucket (instead of the config's), its
     * late limit, and its J to watch the margin live ({@code bacen.throttle.margin.exceeded}).
     */
    public Builder quotaPlan(io.pixquota.bacen.QuotaPlan plan) {
      this.plan = Objects.requireNonNull(plan, "plan cannot be null");
      return this;
    }

    /** A base OkHttp client to share its connection pool and dispatcher; the throttle is added on top. */
    public Builder okHttpClient(OkHttpClient client) {
      this.okHttpClient = Objects.requireNonNull(client, "client cannot be null");
      return this;
    }

    /**
     * @throws IllegalStateException with neither a bucket, nor a RedissonClient, nor a Redis URL
     */
    public PixClient build() {
      RedissonClient r = redisson;
      TokenBucket b = bucket;
      if (b == null) {
        if (r == null) {
          if (config.redisUrl() == null) {
            throw new IllegalStateException("a RedissonClient, a TokenBucket or a redisUrl is required");
          }
          Config c = new Config();
          // Lazy: a client built while Redis is down fails closed per call and recovers by itself, instead of
          // failing to start. No Redisson retries: the bucket's own timeout bounds every call.
          c.setLazyInitialization(true);
          java.net.URI redis = java.net.URI.create(config.redisUrl());
          org.redisson.config.SingleServerConfig server = c.useSingleServer()
              .setAddress(redis.getScheme() + "://" + redis.getHost() + ":" + (redis.getPort() > 0 ? redis.getPort()
                  : 6379)) // rediss:// is TLS
              .setTimeout((int) config.redisTimeout().toMillis()).setRetryAttempts(0)
              .setConnectionMinimumIdleSize(4).setConnectionPoolSize(64)
              .setConnectTimeout((int) Math.max(1000, config.redisTimeout().toMillis()));
          String userInfo = redis.getUserInfo(); // redis://user:password@host or redis://:password@host (AUTH)
          if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? null : userInfo.substring(0, colon);
            server.setUsername(user == null || user.isEmpty() ? null : user)
                .setPassword(colon < 0 ? userInfo : userInfo.substring(colon + 1));
          }
          r = Redisson.create(c);
        }
        b = RedisTokenBucket.create(r, TokenBucketConfig.custom(config.bucketName())
            .limit(plan != null ? plan.capacity() : config.bucketCapacity(),
                plan != null ? plan.ratePerSecond() : config.bucketRate())
            .redisTimeout(config.redisTimeout()).build());
      }
      return new PixClient(this, r, b);
    }
  }
}
