package io.pixquota.bacen.dict;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.support.TimeSource;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.OkHttpClient;
import org.redisson.api.RedissonClient;

/** Builds a {@link DictClient}: where the mirror lives, the meters, the HTTP client and its TLS. */
public final class DictClientBuilder {
  final DictClientConfig config;
  RedisStore store;
  BucketGroup group;
  MeterRegistry registry;
  OkHttpClient okHttpClient;
  SSLSocketFactory sslSocketFactory;
  X509TrustManager trustManager;
  Executor callbacks = ForkJoinPool.commonPool();
  TimeSource time = TimeSource.SYSTEM;
  Throttle throttle;

  DictClientBuilder(DictClientConfig config) {
    this.config = Objects.requireNonNull(config, "config cannot be null");
  }

  /**
   * The Redisson client the mirror lives in; without one (nor a {@link #store}, nor a group), the client makes its own
   * from the URL. The same as {@code store(RedissonStore.of(client))}.
   */
  public DictClientBuilder redisson(RedissonClient client) {
    this.store = RedissonStore.of(Objects.requireNonNull(client, "redisson cannot be null"));
    return this;
  }

  /**
   * The Redis client the mirror lives in, Redisson's or Lettuce's ({@code RedissonStore.of}, {@code LettuceStore.of});
   * without one (nor a group), the client makes its own (Redisson) from the URL. The last of this and
   * {@link #redisson} wins.
   */
  public DictClientBuilder store(RedisStore store) {
    this.store = Objects.requireNonNull(store, "store cannot be null");
    return this;
  }

  /**
   * The throttle the lookups go through, shared with the service's other quotas (the Spring starter's): it must take
   * DICT's lookups (a quota whose match takes them; each lookup books on its own buckets, the quota's bucket is not
   * asked) and its meters then count them under that quota. Default: a throttle of the client's own, quota
   * {@code dict}.
   */
  public DictClientBuilder throttle(Throttle shared) {
    this.throttle = Objects.requireNonNull(shared, "throttle cannot be null");
    return this;
  }

  /**
   * Another store for the mirror (a {@link io.pixquota.throttle.store.LocalBucketGroup} for one process or a test)
   * instead of Redis.
   */
  public DictClientBuilder bucketGroup(BucketGroup bucketGroup) {
    this.group = Objects.requireNonNull(bucketGroup, "bucketGroup cannot be null");
    return this;
  }

  /** Where the meters go; default none. */
  public DictClientBuilder meterRegistry(MeterRegistry meterRegistry) {
    this.registry = Objects.requireNonNull(meterRegistry, "meterRegistry cannot be null");
    return this;
  }

  /** A base OkHttp client to share its pool and dispatcher (its TLS is DICT's mTLS); the call timeout is set on it. */
  public DictClientBuilder okHttpClient(OkHttpClient client) {
    this.okHttpClient = Objects.requireNonNull(client, "okHttpClient cannot be null");
    return this;
  }

  /**
   * The TLS of the client this DictClient makes for itself: DICT requires mutual TLS (the participant is known by its
   * certificate), so {@code sslSocketFactory} comes from an {@code SSLContext} with your certificate's key managers.
   */
  public DictClientBuilder tls(SSLSocketFactory socketFactory, X509TrustManager trust) {
    this.sslSocketFactory = Objects.requireNonNull(socketFactory, "sslSocketFactory cannot be null");
    this.trustManager = Objects.requireNonNull(trust, "trustManager cannot be null");
    return this;
  }

  /** Where the futures of {@link DictClient#getEntryAsync} complete; default the common pool, never OkHttp's. */
  public DictClientBuilder callbackExecutor(Executor executor) {
    this.callbacks = Objects.requireNonNull(executor, "executor cannot be null");
    return this;
  }

  /** For tests: the clock waits are measured on. */
  DictClientBuilder timeSource(TimeSource source) {
    this.time = Objects.requireNonNull(source, "time cannot be null");
    return this;
  }

  /** @throws IllegalStateException with neither a group, nor a store (or RedissonClient), nor a Redis URL */
  public DictClient build() {
    return new DictClient(DictWiring.wire(this));
  }
}
