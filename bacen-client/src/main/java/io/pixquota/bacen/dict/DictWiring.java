package io.pixquota.bacen.dict;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisBucketGroup;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Puts a {@link DictClient}'s parts together, and takes them apart on close. */
final class DictWiring {
  private static final Logger log = LoggerFactory.getLogger(DictWiring.class);
  /** Keys that answered 404 the negative cache holds at most. */
  static final int NEGATIVE_CACHE_SIZE = 100_000;

  record Parts(DictClientConfig config, DictBuckets buckets, DictLedger ledger, DictMirror mirror,
      DictLookups lookups, DictAsync async, DictHttp http, DictMetrics metrics, ScheduledExecutorService scheduler,
      boolean ownsHttp, RedissonClient ownedRedisson) {}

  private DictWiring() {}

  static Parts wire(DictClientBuilder b) {
    DictClientConfig config = b.config;
    RedissonClient owned = null;
    BucketGroup group = b.group;
    if (group == null) {
      RedissonClient r = b.redisson;
      if (r == null) {
        if (config.redisUrl() == null) {
          throw new IllegalStateException("a RedissonClient, a BucketGroup or a redisUrl is required");
        }
        owned = RedisAddress.parse(config.redisUrl()).connect(config.redisTimeout());
        r = owned;
      }
      group = RedisBucketGroup.create(r, "dict-" + config.participant(), config.keyPrefix(), config.redisTimeout(),
          config.reserve().standingTtl());
    }
    MeterRegistry registry = b.registry != null ? b.registry : new CompositeMeterRegistry();
    DictBuckets buckets = new DictBuckets(config.policies());
    DictLedger ledger = new DictLedger();
    DictMetrics metrics = new DictMetrics(registry, config.policies(), ledger);
    metrics.reserveKept(buckets, config.reserve());
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(run -> {
      Thread t = new Thread(run, "pixquota-dict-" + config.participant());
      t.setDaemon(true);
      return t;
    });
    DictMirror mirror = new DictMirror(group, ledger, metrics, DictMirror.Scheduler.of(scheduler),
        config.flushDelay());
    Cache<String, Boolean> notFound = config.negativeCacheTtl().isZero() ? null : Caffeine.newBuilder()
        .expireAfterWrite(config.negativeCacheTtl()).maximumSize(NEGATIVE_CACHE_SIZE).build();
    DictLookups lookups = new DictLookups(config, buckets, ledger, metrics, notFound, b.time, mirror::flushNow,
        mirror::flushSoon);
    OkHttpClient.Builder http = (b.okHttpClient != null ? b.okHttpClient : new OkHttpClient()).newBuilder()
        .callTimeout(config.callTimeout()).followRedirects(false).followSslRedirects(false);
    if (b.sslSocketFactory != null) {
      http.sslSocketFactory(b.sslSocketFactory, b.trustManager);
    }
    DictHttp dictHttp = new DictHttp(http.build(), HttpUrl.get(config.api().toString()), config.participant());
    DictAsync async = new DictAsync(lookups, mirror, ledger, dictHttp, scheduler, b.callbacks);
    return new Parts(config, buckets, ledger, mirror, lookups, async, dictHttp, metrics, scheduler,
        b.okHttpClient == null, owned);
  }

  static void close(Parts parts) {
    parts.scheduler().shutdown();
    try {
      parts.scheduler().awaitTermination(parts.config().redisTimeout().toMillis(), TimeUnit.MILLISECONDS);
      parts.mirror().flushAll();
    } catch (StoreUnavailableException | RuntimeException e) {
      log.warn("DICT mirror: closing with refunds and credits owed that did not reach the store ({}); the mirror "
          + "stays lower until its buckets refill", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (parts.ownsHttp()) {
      parts.http().client().dispatcher().executorService().shutdown();
      parts.http().client().connectionPool().evictAll();
    }
    if (parts.ownedRedisson() != null) {
      parts.ownedRedisson().shutdown();
    }
  }
}
