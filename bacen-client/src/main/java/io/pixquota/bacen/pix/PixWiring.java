package io.pixquota.bacen.pix;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.okhttp.AsyncCallDispatcher;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.throttle.store.TokenBucket;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.redisson.api.RedissonClient;

/**
 * What {@link PixClient.Builder#build()} wires: the shared bucket (on the given one, the given Redisson client, or a
 * Redisson client of its own from the configured URL), the throttle and its OkHttp interceptor, the OkHttp clients
 * (for the API, for the token, unthrottled for the policy), the token source, the retry and the async calls.
 */
final class PixWiring {
  /** What a {@link PixClient} is made of. */
  record Parts(PixClientConfig config, PixJson json, HttpUrl apiBase, OkHttpClient http, OkHttpClient unthrottledHttp,
      PixAttempts attempts, PixResponses responses, PixRetry retry, boolean ownsHttp, PixAsyncCalls asyncCalls,
      RedissonClient ownedRedisson, Throttle throttle, boolean ownsThrottle, int warmUpConnections) {}

  private PixWiring() {}

  static PixClient wire(PixClient.Builder b) {
    if (b.sslSocketFactory != null && b.okHttpClient != null) {
      throw new IllegalStateException("tls is for the client PixClient makes; with your own okHttpClient, set its "
          + "sslSocketFactory there");
    }
    if (b.interceptor != null) {
      if (b.bucket != null && !b.interceptor.buckets().contains(b.bucket)) {
        throw new IllegalStateException("the throttlingInterceptor does not book on the given tokenBucket '"
            + b.bucket.name() + "'");
      }
      return new PixClient(parts(b, null, b.bucket != null ? b.bucket : b.interceptor.buckets().get(0)));
    }
    if (b.bucket != null) {
      return new PixClient(parts(b, null, b.bucket));
    }
    SharedBucketSettings settings = b.config.bucket();
    RedissonClient owned = null;
    RedisStore r = b.store;
    if (r == null) {
      if (settings.redisUrl() == null) {
        throw new IllegalStateException("a RedisStore (or RedissonClient), a TokenBucket or a redisUrl is required");
      }
      owned = RedisAddress.parse(settings.redisUrl()).connect(settings.redisTimeout());
      r = RedissonStore.of(owned);
    }
    TokenBucket bucket = RedisTokenBucket.create(r, settings.bucketConfig(
        b.plan != null ? b.plan.capacity() : settings.capacity(),
        b.plan != null ? b.plan.ratePerSecond() : settings.ratePerSecond()));
    return new PixClient(parts(b, owned, bucket));
  }

  private static Parts parts(PixClient.Builder b, RedissonClient ownedRedisson, TokenBucket bucket) {
    PixClientConfig config = b.config;
    ProviderSettings provider = config.provider();
    PixJson json = new PixJson();
    HttpUrl apiBase = HttpUrl.get(provider.baseUrl().toString());
    MeterRegistry registry = b.registry != null ? b.registry : new CompositeMeterRegistry();
    PixResponses responses = new PixResponses(json, b.time);
    PixRetry retry = new PixRetry(config.retry(), b.time, registry, b.jitter);
    ThrottlingInterceptor interceptor = b.interceptor != null ? b.interceptor
        : ThrottlingInterceptor.of(throttle(b, bucket, registry));
    // Every request, token fetches included, ends within the call timeout. No redirects: a known provider does not
    // send any, and a redirect loop would drain the shared bucket; a 3xx is an unexpected answer.
    int inFlight = config.throttling().maxInFlight();
    OkHttpClient.Builder baseBuilder = (b.okHttpClient != null ? b.okHttpClient : ownClient(bucket, inFlight))
        .newBuilder()
        .callTimeout(provider.callTimeout()).followRedirects(false).followSslRedirects(false);
    if (b.sslSocketFactory != null) {
      baseBuilder.sslSocketFactory(b.sslSocketFactory, b.trustManager);
    }
    OkHttpClient base = baseBuilder.build();
    // Token fetches are few: the throttle as an application interceptor books their slot before a connection.
    OkHttpClient tokenHttp = provider.throttleTokenCalls()
        ? base.newBuilder().addInterceptor(interceptor).build() : base;
    OAuthTokenSource tokens = new OAuthTokenSource(tokenHttp, HttpUrl.get(provider.tokenUrl().toString()),
        provider.clientId(), provider.clientSecret(), json.mapper, b.time::nanoTime);
    // Every call is made by PixAttempts' ThrottledCallFactory: it waits for its slot holding no connection, then takes
    // one; the network interceptor checks the slot once the connection is there, so a slow connection set-up cannot
    // make a call leave late and bunch with the next slots (measured: 1 x 429 per cold burst otherwise): it books
    // again.
    OkHttpClient http = base.newBuilder().addNetworkInterceptor(interceptor).build();
    PixAttempts attempts = new PixAttempts(apiBase, http, tokens, responses, provider.callTimeout(), registry,
        b.okHttpClient == null ? null : undersized(b.okHttpClient, dispatcherNeeds(bucket, inFlight)));
    retry.retries("getPix");
    retry.retries("getCob");
    for (String operation : new String[] {"getPix", "getCob"}) {
      attempts.answers(operation, 429); // at 0 from the start, so that an alert on its increase sees the first one
    }
    return new Parts(config, json, apiBase, http, base, attempts, responses, retry, b.okHttpClient == null,
        new PixAsyncCalls(retry, attempts, b.callbacks), ownedRedisson, interceptor.throttle(),
        b.interceptor == null && b.bucket == null, b.warmUpConnections);
  }

  private static Throttle throttle(PixClient.Builder b, TokenBucket bucket, MeterRegistry registry) {
    PixClientConfig config = b.config;
    ThrottleSettings waits = config.throttling();
    ThrottleBuilder throttle = Throttle.builder(bucket).maxWait(waits.maxWait())
        .defaultPriority(waits.defaultPriority()).horizon(Priority.BATCH, waits.batchHorizon())
        .meterRegistry(registry).redisUnavailable(config.bucket().whenUnavailable(), config.bucket().localShare(),
            Throttle.DEFAULT_LOCAL_RETRY_INTERVAL);
    if (b.plan != null) {
      throttle.plan(b.plan);
    }
    waits.quotaSignal().ifPresent(throttle::quotaSignal);
    throttle.quotaHeaders(waits.quotaHeaders());
    if (waits.maxInFlight() > 0) { // the store chooses: beside a Redis bucket, the permit and the slot in one script
      throttle.providerTimeout(waits.providerTimeout())
          .defaultPool(bucket.permitPool(bucket.name(), waits.maxInFlight(), waits.permitLease()));
    }
    return throttle.build();
  }

  /**
   * An OkHttp client of our own, its dispatcher sized for async calls: at least {@link #dispatcherNeeds}, and the
   * bucket's burst plus a second of its rate in any case (OkHttp's default is 5 per host); a call in flight runs on a
   * virtual thread where the JDK allows ({@link AsyncCallDispatcher}).
   */
  static OkHttpClient ownClient(TokenBucket bucket, int maxInFlight) {
    // idle connections kept for the calls the bucket grants at once (OkHttp keeps 5 by default): a burst after a
    // quiet minute, or after warmUp, finds them open
    int burst = (int) Math.min(1024, Math.ceil(bucket.limits().stream().mapToDouble(l -> l.capacity()).min()
        .orElse(0)));
    OkHttpClient client = new OkHttpClient.Builder().dispatcher(AsyncCallDispatcher.create())
        .connectionPool(new ConnectionPool(Math.max(5, burst), 5, TimeUnit.MINUTES)).build();
    int needed = Math.max(dispatcherNeeds(bucket, maxInFlight), burstAndASecond(bucket));
    client.dispatcher().setMaxRequests(Math.max(client.dispatcher().getMaxRequests(), needed));
    client.dispatcher().setMaxRequestsPerHost(Math.max(client.dispatcher().getMaxRequestsPerHost(), needed));
    return client;
  }

  /**
   * The calls to a host a dispatcher must run at once for async calls, which hold a dispatcher slot only in flight:
   * with a cap in flight, the cap (fewer leave a permit unused while a call waits in the dispatcher); without one,
   * the bucket's burst plus a second of its rate (a burst leaves at once, and a call that waits in the dispatcher
   * leaves late and books again). 1024 at most.
   */
  static int dispatcherNeeds(TokenBucket bucket, int maxInFlight) {
    return maxInFlight > 0 ? Math.min(1024, maxInFlight) : burstAndASecond(bucket);
  }

  private static int burstAndASecond(TokenBucket bucket) {
    double perHost = bucket.limits().stream().mapToDouble(l -> l.capacity() + l.refillPerSecond()).min()
        .orElse(0);
    return (int) Math.min(1024, Math.ceil(perHost));
  }

  /** Why a caller's client runs too few calls at once for {@code needed}, or null when it runs enough. */
  static String undersized(OkHttpClient client, int needed) {
    int has = Math.min(client.dispatcher().getMaxRequestsPerHost(), client.dispatcher().getMaxRequests());
    return has >= needed ? null : "PixClient: the OkHttp client given to it runs at most " + has + " calls to a host "
        + "at once (its dispatcher's maxRequestsPerHost, and maxRequests for async calls), and its calls "
        + "need " + needed + " (maxInFlight; without it, the bucket's burst plus a second of its rate): the calls past "
        + has + " wait their turn holding their slots and permits, and leave late. Set "
        + "client.dispatcher().setMaxRequestsPerHost(" + needed + ") (and setMaxRequests) on it; logged once";
  }
}
