package io.pixquota.bacen.pix;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.pixquota.bacen.BucketUnavailableException;
import io.pixquota.bacen.RedisAddress;
import io.pixquota.bacen.RedisTokenBucket;
import io.pixquota.bacen.Priority;
import io.pixquota.bacen.ThrottlingInterceptor;
import io.pixquota.bacen.TokenBucket;
import io.pixquota.bacen.internal.Checks;
import io.pixquota.bacen.internal.OAuthTokenSource;
import io.pixquota.bacen.internal.TimeSource;
import io.pixquota.bacen.plan.ProviderPolicy;
import io.pixquota.bacen.plan.QuotaPlan;
import io.pixquota.bacen.plan.QuotaPlanner;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongUnaryOperator;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.redisson.api.RedissonClient;

/**
 * A typed API Pix client whose every call takes a slot in the shared token bucket first.
 *
 * <pre>{@code
 * PixClient pix = PixClient.builder(PixClientConfig.fromEnvironment()).redisson(redisson).build();
 * Pix p = pix.getPix("E12345678202611301200ABCDEFGHIJK");
 * }</pre>
 *
 * <p>Blocking methods, and {@code ...Async} ones that hold no thread while a call waits for its slot; ids are
 * validated before any I/O. Provider 429 and 503 and I/O errors are retried (GETs only,
 * each retry through the bucket again); what is left becomes a {@link PixException}. This class is threadsafe;
 * share one instance.
 */
public final class PixClient implements AutoCloseable {
  private final PixClientConfig config;
  private final HttpUrl apiBase;
  private final OkHttpClient http;
  private final OkHttpClient unthrottledHttp;
  private final PixAttempts attempts;
  private final PixJson json = new PixJson();
  private final PixResponses responses;
  private final PixRetry retry;
  private final boolean ownsHttp;
  private final PixAsyncCalls asyncCalls;
  private final RedissonClient ownedRedisson;
  private final List<TokenBucket> buckets;
  private volatile boolean closed;

  private PixClient(Builder b, RedissonClient ownedRedisson, TokenBucket bucket) {
    this.config = b.config;
    this.apiBase = HttpUrl.get(PixClientConfig.directory(config.baseUrl()).toString());
    MeterRegistry registry = b.registry != null ? b.registry : new CompositeMeterRegistry();
    this.ownedRedisson = ownedRedisson;
    this.responses = new PixResponses(json, b.time);
    this.retry = new PixRetry(config, b.time, registry, b.jitter);

    ThrottlingInterceptor interceptor = b.interceptor != null ? b.interceptor : interceptor(b, bucket, registry);
    this.buckets = interceptor.buckets();
    // Every request, token fetches included, ends within the call timeout. No redirects: a known provider does not
    // send any, and a redirect loop would drain the shared bucket; a 3xx is an unexpected answer.
    this.ownsHttp = b.okHttpClient == null;
    OkHttpClient.Builder baseBuilder = (b.okHttpClient != null ? b.okHttpClient : ownClient(bucket)).newBuilder()
        .callTimeout(config.callTimeout()).followRedirects(false).followSslRedirects(false);
    if (b.sslSocketFactory != null) {
      baseBuilder.sslSocketFactory(b.sslSocketFactory, b.trustManager);
    }
    OkHttpClient base = baseBuilder.build();
    OkHttpClient tokenHttp = config.throttleTokenCalls()
        ? base.newBuilder().addNetworkInterceptor(interceptor).build() : base;
    OAuthTokenSource tokens = new OAuthTokenSource(tokenHttp, HttpUrl.get(config.tokenUrl().toString()),
        config.clientId(), config.clientSecret(), json.mapper, b.time::nanoTime);
    // A network interceptor: the slot is booked once OkHttp holds a connection, so a slow connection set-up cannot
    // make a call leave late and bunch with the next slots (measured: 1 x 429 per cold burst otherwise).
    this.http = base.newBuilder().addNetworkInterceptor(interceptor).build();
    this.unthrottledHttp = base;
    this.attempts = new PixAttempts(apiBase, http, tokens, responses, config.callTimeout(), registry);
    this.asyncCalls = new PixAsyncCalls(retry, attempts, b.callbacks);
    retry.retries("getPix");
    retry.retries("getCob");
    for (String operation : new String[] {"getPix", "getCob"}) {
      attempts.answers(operation, 429); // at 0 from the start, so that an alert on its increase sees the first one
    }
  }

  private static ThrottlingInterceptor interceptor(Builder b, TokenBucket bucket, MeterRegistry registry) {
    PixClientConfig config = b.config;
    ThrottlingInterceptor.Builder throttle = ThrottlingInterceptor.builder(bucket).maxWait(config.maxWait())
        .defaultPriority(config.defaultPriority()).horizon(Priority.BATCH, config.batchHorizon())
        .meterRegistry(registry).redisUnavailable(config.redisUnavailable(), config.localShare(),
            ThrottlingInterceptor.DEFAULT_LOCAL_RETRY_INTERVAL);
    if (b.plan != null) {
      throttle.plan(b.plan);
    }
    config.quotaSignal().ifPresent(throttle::quotaSignal);
    return throttle.build();
  }

  /**
   * An OkHttp client of our own, its dispatcher sized for async calls: they hold a dispatcher slot only in flight,
   * but a burst leaves at once, and one that queues in the dispatcher leaves late and books again. So: the bucket's
   * burst plus a second's worth of its rate, per host (OkHttp's default is 5).
   */
  private static OkHttpClient ownClient(TokenBucket bucket) {
    OkHttpClient client = new OkHttpClient();
    double perHost = bucket.limits().stream().mapToDouble(l -> l.capacity() + l.refillPerSecond()).min()
        .orElse(0);
    int needed = (int) Math.min(1024, Math.ceil(perHost));
    client.dispatcher().setMaxRequests(Math.max(client.dispatcher().getMaxRequests(), needed));
    client.dispatcher().setMaxRequestsPerHost(Math.max(client.dispatcher().getMaxRequestsPerHost(), needed));
    return client;
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
    return getPix(endToEndId, config.defaultPriority());
  }

  /**
   * {@link #getPix(String)} in a priority class: {@link Priority#INTERACTIVE} for a person waiting for the answer,
   * {@link Priority#BATCH} for background work, which never stands in the queue in front of interactive calls.
   *
   * @throws IllegalArgumentException for a malformed endToEndId, before any I/O
   * @throws NullPointerException     for a null priority, before any I/O
   */
  public Pix getPix(String endToEndId, Priority priority) {
    PixIds.checkEndToEndId(endToEndId);
    Objects.requireNonNull(priority, "priority cannot be null");
    checkOpen();
    return retry.call("getPix", () -> attempts.attempt("getPix", "pix/" + endToEndId, priority, json::pix));
  }

  /**
   * {@code GET /api/v2/cob/{txid}}.
   *
   * @throws IllegalArgumentException for a malformed txid, before any I/O
   * @throws PixNotFoundException     when the provider has no such charge
   * @throws PixException             for the other failures (see its subclasses)
   */
  public Cob getCob(String txid) {
    return getCob(txid, config.defaultPriority());
  }

  /**
   * {@link #getCob(String)} in a priority class; see {@link #getPix(String, Priority)}.
   *
   * @throws IllegalArgumentException for a malformed txid, before any I/O
   * @throws NullPointerException     for a null priority, before any I/O
   */
  public Cob getCob(String txid, Priority priority) {
    PixIds.checkTxid(txid);
    Objects.requireNonNull(priority, "priority cannot be null");
    checkOpen();
    return retry.call("getCob", () -> attempts.attempt("getCob", "cob/" + txid, priority, json::cob));
  }

  /**
   * {@link #getPix} without a thread waiting: the slot is booked with the bucket's async operation and waited for on
   * a timer, the request sent with OkHttp's {@code enqueue}, retries waited for on the timer too. The future
   * completes on the {@link Builder#callbackExecutor callback executor} (never OkHttp's dispatcher) with the Pix, or
   * exceptionally with the {@link PixException} that {@link #getPix} would throw. Cancelling it before the send gives
   * the slot back and sends nothing.
   *
   * @throws IllegalArgumentException for a malformed endToEndId, before any I/O
   */
  public CompletableFuture<Pix> getPixAsync(String endToEndId) {
    return getPixAsync(endToEndId, config.defaultPriority());
  }

  /**
   * {@link #getPixAsync(String)} in a priority class; see {@link #getPix(String, Priority)}. A batch call that finds
   * no slot within its horizon waits to ask again on the timer, without a thread.
   *
   * @throws IllegalArgumentException for a malformed endToEndId, before any I/O
   * @throws NullPointerException     for a null priority, before any I/O
   */
  public CompletableFuture<Pix> getPixAsync(String endToEndId, Priority priority) {
    PixIds.checkEndToEndId(endToEndId);
    Objects.requireNonNull(priority, "priority cannot be null");
    checkOpen();
    return asyncCalls.call("getPix", "pix/" + endToEndId, priority, json::pix);
  }

  /**
   * {@link #getCob} without a thread waiting; see {@link #getPixAsync}.
   *
   * @throws IllegalArgumentException for a malformed txid, before any I/O
   */
  public CompletableFuture<Cob> getCobAsync(String txid) {
    return getCobAsync(txid, config.defaultPriority());
  }

  /**
   * {@link #getCobAsync(String)} in a priority class; see {@link #getPix(String, Priority)}.
   *
   * @throws IllegalArgumentException for a malformed txid, before any I/O
   * @throws NullPointerException     for a null priority, before any I/O
   */
  public CompletableFuture<Cob> getCobAsync(String txid, Priority priority) {
    PixIds.checkTxid(txid);
    Objects.requireNonNull(priority, "priority cannot be null");
    checkOpen();
    return asyncCalls.call("getCob", "cob/" + txid, priority, json::cob);
  }

  /**
   * Fetches the OAuth2 token and loads the bucket's script into Redis now, so that the first calls of a burst wait
   * for neither. Optional: calls do both when needed.
   *
   * @throws PixAccessDeniedException when the token endpoint refuses the credentials
   * @throws PixThrottledException    when the shared bucket does not answer
   * @throws PixException             for the other failures
   */
  public void warmUp() {
    checkOpen();
    attempts.bearer();
    try {
      for (TokenBucket b : buckets) {
        b.preload();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PixTransportException("interrupted while loading the bucket's script", e);
    } catch (BucketUnavailableException e) {
      throw new PixThrottledException("the shared bucket is unavailable", e);
    }
  }

  /**
   * {@code GET /policies/{policy}}: the provider's own limit for this integrator, as BACEN's DICT documents it (the
   * mock serves it too). Feed it to {@link QuotaPlanner} to plan the bucket from the provider's word instead of a
   * guess. Not throttled: it is not a PIX query.
   *
   * @throws PixException when the provider does not serve the policy or answers something unreadable
   */
  public ProviderPolicy getPolicy(String policy) {
    Checks.notBlank("policy", policy);
    if (!policy.matches("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}")) {
      throw new IllegalArgumentException("policy must be 1 to 64 letters, digits, '_', '.' or '-', not starting "
          + "with '.', but was '" + policy + "'");
    }
    checkOpen();
    Request request = new Request.Builder().url(apiBase.resolve("policies/" + policy))
        .header("Authorization", "Bearer " + attempts.bearer()).get().build();
    try (Response response = unthrottledHttp.newCall(request).execute()) {
      JsonNode body = responses.read(response, node -> node);
      return json.policy(body);
    } catch (IllegalArgumentException e) {
      throw new PixUnexpectedResponseException("unusable policy: " + e.getMessage(), 200, null, null, e);
    } catch (IOException e) {
      throw PixAttempts.transport("policy request failed", e);
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this PixClient is closed");
    }
  }

  /**
   * Refuses every later call ({@link IllegalStateException}), lets calls in flight end, and shuts down what this
   * PixClient created: its OkHttp client's dispatcher and connections, and its Redisson client. A given OkHttp client
   * ({@link Builder#okHttpClient}) or Redisson client is left alone: the application may use it elsewhere.
   */
  @Override
  public void close() {
    closed = true;
    if (ownsHttp) {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    }
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
    private QuotaPlan plan;
    private ThrottlingInterceptor interceptor;
    private SSLSocketFactory sslSocketFactory;
    private X509TrustManager trustManager;
    private TimeSource time = TimeSource.SYSTEM;
    private LongUnaryOperator jitter = bound -> ThreadLocalRandom.current().nextLong(bound + 1);
    private Executor callbacks = ForkJoinPool.commonPool();

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
     * Uses a {@link QuotaPlan}: its capacity and rate for the bucket (instead of the config's), and the interceptor's
     * settings it carries (late limit, J watched live as {@code bacen.throttle.margin.exceeded}, local share cap).
     */
    public Builder quotaPlan(QuotaPlan plan) {
      this.plan = Objects.requireNonNull(plan, "plan cannot be null");
      return this;
    }

    /**
     * A throttle built elsewhere (the Spring Boot starter's bean, say) instead of one from the config: its own
     * settings apply (the config's max wait, default priority, batch horizon and Redis-down policy, and a
     * {@link #quotaPlan}'s interceptor settings, are not used), and its {@link ThrottlingInterceptor#buckets()
     * buckets} are the ones {@link PixClient#warmUp()} prepares.
     */
    public Builder throttlingInterceptor(ThrottlingInterceptor interceptor) {
      this.interceptor = Objects.requireNonNull(interceptor, "interceptor cannot be null");
      return this;
    }

    /**
     * The TLS of the client this PixClient makes for itself: API Pix requires mutual TLS, so {@code sslSocketFactory}
     * comes from an {@code SSLContext} initialised with your certificate's key managers, and {@code trustManager}
     * trusts the provider's CA. With your own {@link #okHttpClient}, set its TLS there instead.
     */
    public Builder tls(SSLSocketFactory sslSocketFactory, X509TrustManager trustManager) {
      this.sslSocketFactory = Objects.requireNonNull(sslSocketFactory, "sslSocketFactory cannot be null");
      this.trustManager = Objects.requireNonNull(trustManager, "trustManager cannot be null");
      return this;
    }

    /** A base OkHttp client to share its connection pool and dispatcher; the throttle is added on top. */
    public Builder okHttpClient(OkHttpClient client) {
      this.okHttpClient = Objects.requireNonNull(client, "client cannot be null");
      return this;
    }

    /**
     * Where the futures of the {@code ...Async} calls complete, so where your {@code thenApply} / {@code thenAccept}
     * run; default {@link ForkJoinPool#commonPool()}. Never OkHttp's dispatcher: a callback that blocks there would
     * hold a dispatcher slot and make later calls miss their slots. Give an executor of your own for callbacks that
     * block or take long.
     */
    public Builder callbackExecutor(Executor executor) {
      this.callbacks = Objects.requireNonNull(executor, "executor cannot be null");
      return this;
    }

    /** For tests: the clock the retry waits on and the token's lifetime is measured with. */
    Builder timeSource(TimeSource time) {
      this.time = Objects.requireNonNull(time, "time cannot be null");
      return this;
    }

    /** For tests: {@code bound -> a long in [0, bound]}, the retry backoff's jitter; default uniform random. */
    Builder jitter(LongUnaryOperator jitter) {
      this.jitter = Objects.requireNonNull(jitter, "jitter cannot be null");
      return this;
    }

    /**
     * @throws IllegalStateException with neither a bucket, nor a RedissonClient, nor a Redis URL
     */
    public PixClient build() {
      if (sslSocketFactory != null && okHttpClient != null) {
        throw new IllegalStateException("tls is for the client PixClient makes; with your own okHttpClient, set its "
            + "sslSocketFactory there");
      }
      if (interceptor != null) {
        if (bucket != null && !interceptor.buckets().contains(bucket)) {
          throw new IllegalStateException("the throttlingInterceptor does not book on the given tokenBucket '"
              + bucket.name() + "'");
        }
        return new PixClient(this, null, bucket != null ? bucket : interceptor.buckets().get(0));
      }
      if (bucket != null) {
        return new PixClient(this, null, bucket);
      }
      RedissonClient owned = null;
      RedissonClient r = redisson;
      if (r == null) {
        if (config.redisUrl() == null) {
          throw new IllegalStateException("a RedissonClient, a TokenBucket or a redisUrl is required");
        }
        owned = RedisAddress.parse(config.redisUrl()).connect(config.redisTimeout());
        r = owned;
      }
      TokenBucket b = RedisTokenBucket.create(r, config.bucketConfig(
          plan != null ? plan.capacity() : config.bucketCapacity(),
          plan != null ? plan.ratePerSecond() : config.bucketRate()));
      return new PixClient(this, owned, b);
    }
  }
}
