package io.pixquota.bacen.pix;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.TimeSource;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongUnaryOperator;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.OkHttpClient;
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
  private final PixWiring.Parts parts;
  private final PixRetry retry;
  private final PixAttempts attempts;
  private final PixJson json;
  private volatile boolean closed;

  PixClient(PixWiring.Parts parts) {
    this.config = parts.config();
    this.parts = parts;
    this.retry = parts.retry();
    this.attempts = parts.attempts();
    this.json = parts.json();
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
    return getPix(endToEndId, config.throttling().defaultPriority());
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
   * {@code GET /api/v2/cob/{txid}}; failures as {@link #getPix(String)}'s ({@link PixNotFoundException}: no such
   * charge; {@link IllegalArgumentException}: a malformed txid, before any I/O).
   */
  public Cob getCob(String txid) {
    return getCob(txid, config.throttling().defaultPriority());
  }

  /** {@link #getCob(String)} in a priority class; see {@link #getPix(String, Priority)}. */
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
    return getPixAsync(endToEndId, config.throttling().defaultPriority());
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
    return parts.asyncCalls().call("getPix", "pix/" + endToEndId, priority, json::pix);
  }

  /** {@link #getCob} without a thread waiting; see {@link #getPixAsync}. */
  public CompletableFuture<Cob> getCobAsync(String txid) {
    return getCobAsync(txid, config.throttling().defaultPriority());
  }

  /** {@link #getCobAsync(String)} in a priority class; see {@link #getPix(String, Priority)}. */
  public CompletableFuture<Cob> getCobAsync(String txid, Priority priority) {
    PixIds.checkTxid(txid);
    Objects.requireNonNull(priority, "priority cannot be null");
    checkOpen();
    return parts.asyncCalls().call("getCob", "cob/" + txid, priority, json::cob);
  }

  /**
   * Fetches the OAuth2 token, prepares the buckets' stores (their scripts, connections and channel) and takes a
   * call's way through the throttle once (sending nothing), so that the first calls of a burst wait for none of it;
   * with {@link Builder#warmUpConnections}, opens that many connections to the provider too. Optional: calls do all
   * of it when needed, a cold replica's first burst later than its slots (each call granted at once opens its own
   * connection, and one whose connection is not there within the late limit books again).
   *
   * @throws PixAccessDeniedException when the token endpoint refuses the credentials
   * @throws PixThrottledException    when the shared bucket does not answer
   * @throws PixException             for the other failures
   */
  public void warmUp() {
    checkOpen();
    attempts.warmUp(parts.throttle());
    PixPolicies.openConnections(parts, parts.warmUpConnections());
  }

  /**
   * {@code GET /policies/{policy}}: the provider's own limit for this integrator, as BACEN's DICT documents it (the
   * mock serves it too). Feed it to {@link QuotaPlanner} to plan the bucket from the provider's word instead of a
   * guess. Not throttled: it is not a PIX query.
   *
   * @throws PixException when the provider does not serve the policy or answers something unreadable
   */
  public ProviderPolicy getPolicy(String policy) {
    PixPolicies.check(policy);
    checkOpen();
    return PixPolicies.get(parts, policy);
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
    if (parts.ownsThrottle()) { // its configuration and its pool's stop counting for the fleet
      parts.throttle().pools().forEach(PermitPool::close);
      parts.throttle().buckets().forEach(TokenBucket::close);
    }
    if (parts.ownsHttp()) {
      parts.http().dispatcher().executorService().shutdown();
      parts.http().connectionPool().evictAll();
    }
    if (parts.ownedRedisson() != null) {
      parts.ownedRedisson().shutdown();
    }
  }

  @Override
  public String toString() {
    return "PixClient{" + config + "}";
  }

  /** Builds a {@link PixClient}. */
  public static final class Builder {
    final PixClientConfig config;
    RedisStore store;
    TokenBucket bucket;
    MeterRegistry registry;
    OkHttpClient okHttpClient;
    QuotaPlan plan;
    ThrottlingInterceptor interceptor;
    SSLSocketFactory sslSocketFactory;
    X509TrustManager trustManager;
    TimeSource time = TimeSource.SYSTEM;
    LongUnaryOperator jitter = bound -> ThreadLocalRandom.current().nextLong(bound + 1);
    Executor callbacks = ForkJoinPool.commonPool();
    int warmUpConnections;

    private Builder(PixClientConfig config) {
      this.config = Objects.requireNonNull(config, "config cannot be null");
    }

    /**
     * The Redisson client of the shared bucket; without one (nor a {@link #store}), the client creates its own from
     * the config's URL. The same as {@code store(RedissonStore.of(redisson))}.
     */
    public Builder redisson(RedissonClient redisson) {
      this.store = RedissonStore.of(Objects.requireNonNull(redisson, "redisson cannot be null"));
      return this;
    }

    /**
     * The Redis client of the shared bucket, Redisson's or Lettuce's ({@code RedissonStore.of},
     * {@code LettuceStore.of}); without one, the client creates its own (Redisson) from the config's URL. The last
     * of this and {@link #redisson} wins.
     */
    public Builder store(RedisStore store) {
      this.store = Objects.requireNonNull(store, "store cannot be null");
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

    /**
     * How many connections {@link PixClient#warmUp()} opens to the provider beforehand, at once, each with a {@code GET
     * /policies/pix} (the quota's policy: not a PIX query; a provider that does not serve it answers 404, which opens
     * the connection all the same): as many as the calls the bucket grants at once (its burst) is what a cold
     * replica's first burst needs, within the dispatcher's calls per host and the connection pool's idle connections
     * (the client PixClient makes keeps as many as the bucket's burst; with {@link #okHttpClient your own}, give it a
     * {@code ConnectionPool} that keeps as many). Default 0: none, since a provider may count such requests; set it
     * where yours does not.
     *
     * @throws IllegalArgumentException for a count outside 0..1000
     */
    public Builder warmUpConnections(int connections) {
      if (connections < 0 || connections > 1000) {
        throw new IllegalArgumentException("warmUpConnections must be within 0..1000, but was " + connections);
      }
      this.warmUpConnections = connections;
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
     * @throws IllegalStateException with neither a bucket, nor a store (or RedissonClient), nor a Redis URL
     */
    public PixClient build() {
      return PixWiring.wire(this);
    }
  }
}
