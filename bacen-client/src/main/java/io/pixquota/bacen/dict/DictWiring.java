package io.pixquota.bacen.dict;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.pixquota.throttle.Match;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.okhttp.AsyncCallDispatcher;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisBucketGroup;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.UnlimitedBucket;
import java.time.Duration;
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
      boolean ownsHttp, RedissonClient ownedRedisson, String groupName) {
    /** The buckets a prepared lookup books on through the throttle. */
    DictLookupBucket lookup(DictLookups.Prepared p) {
      return new DictLookupBucket(p, lookups, mirror, ledger, groupName);
    }
  }

  private DictWiring() {}

  static Parts wire(DictClientBuilder b) {
    DictClientConfig config = b.config;
    RedissonClient owned = null;
    BucketGroup group = b.group;
    if (group == null) {
      RedisStore r = b.store;
      if (r == null) {
        if (config.redisUrl() == null) {
          throw new IllegalStateException("a RedisStore (or RedissonClient), a BucketGroup or a redisUrl is required");
        }
        owned = RedisAddress.parse(config.redisUrl()).connect(config.redisTimeout());
        r = RedissonStore.of(owned);
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
    DictPolicyRefresh refresh = new DictPolicyRefresh(b.time, scheduler, metrics);
    DictLookups lookups = new DictLookups(config, buckets, ledger, metrics, notFound, b.time, mirror, refresh);
    OkHttpClient.Builder http = (b.okHttpClient != null ? b.okHttpClient
        : new OkHttpClient.Builder().dispatcher(AsyncCallDispatcher.create()).build()).newBuilder()
        .callTimeout(config.callTimeout()).followRedirects(false).followSslRedirects(false);
    if (b.sslSocketFactory != null) {
      http.sslSocketFactory(b.sslSocketFactory, b.trustManager);
    }
    OkHttpClient plain = http.build();
    String name = "dict-" + config.participant();
    Throttle throttle = b.throttle != null ? b.throttle : throttle(config, name, b, registry);
    OkHttpClient throttled = plain.newBuilder().addInterceptor(ThrottlingInterceptor.of(throttle))
        .addInterceptor(new DictSending()).build();
    DictHttp dictHttp = new DictHttp(plain, throttled, HttpUrl.get(config.api().toString()), config.participant());
    DictAsync async = new DictAsync(lookups, dictHttp, b.callbacks);
    Parts parts = new Parts(config, buckets, ledger, mirror, lookups, async, dictHttp, metrics, scheduler,
        b.okHttpClient == null, owned, name);
    refresh.bind(() -> DictWarmUp.run(parts), buckets::table);
    return parts;
  }

  /**
   * The throttle every lookup goes through, as API Pix's calls do, its meters tagged {@code quota="dict"}: each request
   * books on its own buckets ({@link DictLookupBucket}); a batch lookup asks with no wait and again when its slot could
   * come, until its max wait. No late rebooking: a lookup sent after its slot cannot breach DICT's token buckets (the
   * mirror took its tokens at the slot, DICT takes them later, when it holds at least as many), and booking again would
   * charge the mirror twice.
   */
  private static Throttle throttle(DictClientConfig config, String name, DictClientBuilder b,
      MeterRegistry registry) {
    return Throttle.builder().quota("dict", Match.any(), new UnlimitedBucket(name, b.time), 1)
        .maxWait(config.maxWait())
        .defaultPriority(config.defaultPriority()).horizon(Priority.BATCH, Duration.ZERO)
        .lateLimit(Duration.ofDays(1)).timeSource(b.time).meterRegistry(registry).build();
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
      parts.http().client().dispatcher().executorService().shutdown(); // the throttled client shares it
      parts.http().client().connectionPool().evictAll();
    }
    if (parts.ownedRedisson() != null) {
      parts.ownedRedisson().shutdown();
    }
  }
}
