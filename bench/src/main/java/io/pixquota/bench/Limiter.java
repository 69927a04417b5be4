package io.pixquota.bench;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.redisson.Bucket4jRedisson;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.lettuce.core.AbstractRedisClient;
import io.pixquota.harness.Sleep;
import io.pixquota.throttle.redis.LettuceStore;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.RedissonStore;
import io.pixquota.throttle.redis.TokenBucketConfig;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

/**
 * The rate limiters under comparison, each set to the same burst B and rate r, and used the way its documentation
 * shows: take a permit (blocking), then call. Ours is the exception: the SDK's interceptor takes the permit inside
 * OkHttp (see {@link PeerReplica}); {@link #open} gives the same bucket for the latency and hot-key scenarios.
 */
enum Limiter {
  OURS("pixquota: interceptor + Lua bucket (reservation)", true),
  OURS_BOOKED("pixquota: the same bucket booked as the throttle books it (acquireAsync, in ask order; the thread "
      + "parked on it); not in the default set", true),
  OURS_LETTUCE("pixquota on Lettuce: the same interceptor and Lua bucket, the bucket's client Lettuce 6.6", true),
  OURS_BOOKED_LETTUCE("pixquota on Lettuce: the bucket booked as the throttle books it (as OURS_BOOKED), through "
      + "Lettuce 6.6", true),
  OURS_SHARES("pixquota with shares: the bucket booked as OURS_BOOKED, its rate shared by three flows (5, 3 and 1),"
      + " the calls of each flow in turn; not in the default set", true),
  BUCKET4J("Bucket4j 8.17 Redisson (CAS), asBlocking().consume(1)", true),
  RRATELIMITER("Redisson RRateLimiter OVERALL, acquire()", true),
  RETRY_LOOP("retry loop: our Lua bucket with maxWait 0, sleep waitMs, ask again", true),
  LOCAL("resilience4j RateLimiter in each replica (B / r each)", false),
  NONE("no limiter", false);

  final String description;
  final boolean usesRedis;

  Limiter(String description, boolean usesRedis) {
    this.description = description;
    this.usesRedis = usesRedis;
  }

  /** OURS_SHARES' flows and their weights, "*" (every flow not named) among them. */
  private static final java.util.Map<String, Double> SHARES = java.util.Map.of("checkout", 5.0, "merchant-api", 3.0,
      "*", 1.0);

  /** Where the Lettuce limiters' client connects ({@link #useLettuceAt}); null until then. */
  private static AbstractRedisClient lettuce;

  /** The Lettuce client of this process's Lettuce limiters: one, on {@code redisUrl}, until {@link #closeLettuce}. */
  static synchronized void useLettuceAt(String redisUrl) {
    if (lettuce == null) {
      lettuce = RedisAddress.parse(redisUrl).connectLettuce(Duration.ofSeconds(5));
    }
  }

  static synchronized void closeLettuce() {
    if (lettuce != null) {
      lettuce.shutdown();
      lettuce = null;
    }
  }

  /** Whether this limiter's bucket runs on Lettuce rather than Redisson. */
  boolean onLettuce() {
    return this == OURS_LETTUCE || this == OURS_BOOKED_LETTUCE;
  }

  /** The store of our bucket for this limiter: Lettuce's ({@link #useLettuceAt} first) or {@code redisson}'s. */
  RedisStore store(RedissonClient redisson) {
    synchronized (Limiter.class) {
      if (onLettuce() && lettuce == null) {
        throw new IllegalStateException(label() + " needs Limiter.useLettuceAt(redisUrl) first");
      }
      return onLettuce() ? LettuceStore.of(lettuce) : RedissonStore.of(redisson);
    }
  }

  String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** A permit source. */
  interface Gate {
    /** Blocks until this caller may call the provider. */
    void await() throws InterruptedException, IOException;

    /** One decision, no waiting: true when a permit was taken now. */
    boolean tryTake() throws InterruptedException, IOException;
  }

  /**
   * Opens this limiter on bucket {@code name} with burst {@code capacity} and {@code rate} per second.
   *
   * @throws IllegalArgumentException when a peer cannot express the setting (Bucket4j and RRateLimiter need a whole
   *     burst)
   */
  Gate open(RedissonClient redisson, String name, double capacity, double rate) {
    return switch (this) {
      case OURS, RETRY_LOOP, OURS_BOOKED, OURS_LETTUCE, OURS_BOOKED_LETTUCE, OURS_SHARES ->
          ourBucket(store(redisson), name, capacity, rate, this);
      case BUCKET4J -> bucket4j(redisson, name, whole("capacity", capacity), rate);
      case RRATELIMITER -> rRateLimiter(redisson, name, whole("capacity", capacity), rate);
      case LOCAL -> local(name, whole("capacity", capacity), rate);
      case NONE -> OPEN;
    };
  }

  /** No limit: every caller goes at once. */
  static final Gate OPEN = new Gate() {
    @Override
    public void await() {}

    @Override
    public boolean tryTake() {
      return true;
    }
  };

  private static long whole(String field, double value) {
    if (value != Math.rint(value) || value < 1) {
      throw new IllegalArgumentException(field + " must be a whole number >= 1 for this limiter, but was " + value);
    }
    return (long) value;
  }

  /** The time in which a window limiter may admit B calls so that its long-run rate is r: B / r, rounded up. */
  private static Duration windowFor(long burst, double rate) {
    return Duration.ofMillis((long) Math.ceil(burst * 1000.0 / rate));
  }

  private static Gate ourBucket(RedisStore store, String name, double capacity, double rate, Limiter how) {
    boolean retryLoop = how == RETRY_LOOP;
    boolean booked = how == OURS_BOOKED || how == OURS_BOOKED_LETTUCE || how == OURS_SHARES;
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).keyPrefix("peers:").limit(capacity, rate);
    if (how == OURS_SHARES) {
      config.shares(SHARES);
    }
    RedisTokenBucket whole = RedisTokenBucket.create(store, config.build());
    // with shares, the calls of each flow in turn (the flows' buckets are the same bucket)
    RedisTokenBucket[] flows = how == OURS_SHARES ? SHARES.keySet().stream().sorted().map(whole::forFlow)
        .toArray(RedisTokenBucket[]::new) : new RedisTokenBucket[] {whole};
    java.util.concurrent.atomic.AtomicInteger turn = new java.util.concurrent.atomic.AtomicInteger();
    try {
      whole.preload();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while loading the bucket's script", e);
    } catch (StoreUnavailableException e) {
      throw new IllegalStateException("the bucket's Redis does not answer", e);
    }
    return new Gate() {
      @Override
      public void await() throws InterruptedException, IOException {
        RedisTokenBucket bucket = flows[Math.floorMod(turn.getAndIncrement(), flows.length)];
        if (!retryLoop) {
          Acquisition a = booked ? take(bucket, Duration.ofMinutes(5)) : bucket.acquire(1, Duration.ofMinutes(5));
          if (!a.granted()) {
            throw new IllegalStateException("no slot within 5 minutes");
          }
          Sleep.until(a.answeredAtNanos() + a.waitTime().toNanos());
          return;
        }
        while (true) { // ask, sleep the quoted wait, ask again
          Acquisition a = bucket.acquire(1, Duration.ZERO);
          if (a.granted()) {
            return;
          }
          Sleep.until(System.nanoTime() + a.waitTime().toNanos());
        }
      }

      @Override
      public boolean tryTake() throws InterruptedException, IOException {
        RedisTokenBucket bucket = flows[Math.floorMod(turn.getAndIncrement(), flows.length)];
        return (booked ? take(bucket, Duration.ZERO) : bucket.acquire(1, Duration.ZERO)).granted();
      }
    };
  }

  /** One booking as a blocking caller of the throttle makes it: the async operation, the thread parked on it. */
  private static Acquisition take(RedisTokenBucket bucket, Duration maxWait) throws InterruptedException, IOException {
    try {
      return bucket.acquireAsync(1, maxWait).get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IOException(e.getCause());
    }
  }

  private static Gate bucket4j(RedissonClient redisson, String name, long capacity, double rate) {
    var proxies = Bucket4jRedisson.casBasedBuilder(((Redisson) redisson).getCommandExecutor())
        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
            Duration.ofSeconds(10)))
        .build();
    // greedy refill of r per second, expressed in whole tokens per 1000 s (9.005/s is 9005 per 1000 s)
    long per1000s = Math.round(rate * 1000);
    BucketConfiguration configuration = BucketConfiguration.builder()
        .addLimit(limit -> limit.capacity(capacity).refillGreedy(per1000s, Duration.ofSeconds(1000)))
        .build();
    BucketProxy bucket = proxies.builder().build("peers:b4j:" + name, () -> configuration);
    return new Gate() {
      @Override
      public void await() throws InterruptedException {
        bucket.asBlocking().consume(1);
      }

      @Override
      public boolean tryTake() {
        return bucket.tryConsume(1);
      }
    };
  }

  private static Gate rRateLimiter(RedissonClient redisson, String name, long capacity, double rate) {
    // A sliding window: B permits in any B / r seconds, so the burst is B and the long-run rate r.
    RRateLimiter limiter = redisson.getRateLimiter("peers:rrl:" + name);
    limiter.trySetRate(RateType.OVERALL, capacity, windowFor(capacity, rate));
    return new Gate() {
      @Override
      public void await() {
        limiter.acquire();
      }

      @Override
      public boolean tryTake() {
        return limiter.tryAcquire();
      }
    };
  }

  private static Gate local(String name, long capacity, double rate) {
    // resilience4j refreshes B permits every B / r seconds: burst B, long-run rate r, in this process only.
    RateLimiter limiter = RateLimiter.of(name, RateLimiterConfig.custom().limitForPeriod((int) capacity)
        .limitRefreshPeriod(windowFor(capacity, rate)).timeoutDuration(Duration.ofMinutes(5)).build());
    return new Gate() {
      @Override
      public void await() throws InterruptedException {
        if (!limiter.acquirePermission()) {
          throw new IllegalStateException("no permit within 5 minutes");
        }
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }

      @Override
      public boolean tryTake() {
        throw new UnsupportedOperationException("a local limiter has no shared key to decide on");
      }
    };
  }
}
