package io.pixquota.throttle.redis;

import io.pixquota.throttle.internal.GroupStep;
import io.pixquota.throttle.redis.internal.GroupProtocol;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.ScriptClient;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.BucketGroups;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;

/**
 * A {@link BucketGroup} in Redis: one atomic script ({@code bucket_group.lua}) per decision, over keys that share the
 * group's hash tag ({@code <prefix>{<group>}:b:<bucket>}, credits {@code ...:c:<id>}), so that in a Cluster they
 * live in one slot, the script reaches them all, and a decision stays one round trip. The price: every bucket of a
 * group is on one node (measured in docs/benchmarks.md). A bucket's key is deleted once full and otherwise expires
 * when it would be full again, or after the standing ttl while it holds standing. Threadsafe; it does not own the
 * Redis client behind its {@link RedisStore}.
 */
public final class RedisBucketGroup implements BucketGroup {
  private static final LuaScript SCRIPT = LuaScript.BUCKET_GROUP;

  private final ScriptClient scripts;
  private final String name;
  private final String base;
  private final long timeoutNanos;
  private final TimeSource time;
  private final Clock clientClock;
  private final long standingMillis;

  private RedisBucketGroup(ScriptClient scripts, String name, String keyPrefix, Duration redisTimeout,
      Duration standingTtl, Clock clientClock, TimeSource time) {
    this.scripts = Objects.requireNonNull(scripts, "client cannot be null");
    this.name = Checks.keyName("group name", name);
    Objects.requireNonNull(keyPrefix, "keyPrefix cannot be null");
    if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("keyPrefix must not contain '{' or '}', but was '" + keyPrefix + "'");
    }
    this.base = keyPrefix + "{" + name + "}:";
    this.timeoutNanos = Checks.positiveAtMostADay("redisTimeout", redisTimeout).toNanos();
    this.standingMillis = Checks.standingTtl("standingTtl", standingTtl).toMillis();
    this.clientClock = clientClock;
    this.time = time;
  }

  /** A group named {@code name} on {@code store} (Redisson or Lettuce), default key prefix and Redis timeout. */
  public static RedisBucketGroup create(RedisStore store, String name) {
    return create(store, name, TokenBucketConfig.DEFAULT_KEY_PREFIX, TokenBucketConfig.DEFAULT_REDIS_TIMEOUT);
  }

  /** A group named {@code name} on {@code store}, under {@code keyPrefix}, waiting at most {@code redisTimeout}. */
  public static RedisBucketGroup create(RedisStore store, String name, String keyPrefix, Duration redisTimeout) {
    return create(store, name, keyPrefix, redisTimeout, DEFAULT_STANDING_TTL);
  }

  /**
   * A group named {@code name} on {@code store} (Redisson or Lettuce), under {@code keyPrefix}, waiting at most
   * {@code redisTimeout} for Redis, keeping a bucket's standing for {@code standingTtl} (at most 366 days) after the
   * bucket was last written.
   */
  public static RedisBucketGroup create(RedisStore store, String name, String keyPrefix, Duration redisTimeout,
      Duration standingTtl) {
    return new RedisBucketGroup(Stores.scripts(store), name, keyPrefix, redisTimeout, standingTtl, null,
        TimeSource.SYSTEM);
  }

  /** For tests: the caller's clock instead of Redis's TIME, and answers stamped on {@code time}. */
  static RedisBucketGroup create(RedisStore store, String name, String keyPrefix, Clock clientClock,
      TimeSource time) {
    return new RedisBucketGroup(Stores.scripts(store), name, keyPrefix, TokenBucketConfig.DEFAULT_REDIS_TIMEOUT,
        DEFAULT_STANDING_TTL, clientClock, time);
  }

  @Override
  public String name() {
    return name;
  }

  /** The Redis key of a bucket of this group. */
  public String key(String bucket) {
    return base + "b:" + bucket;
  }

  @Override
  public Acquired acquire(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits)
      throws StoreUnavailableException, InterruptedException {
    return acquire(takes, maxWait, gives, credits, null);
  }

  @Override
  public Acquired acquire(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits,
      Standing standing) throws StoreUnavailableException, InterruptedException {
    Call call = call(takes, maxWait, gives, credits, standing);
    try {
      LuaScript.Reply r = SCRIPT.call(call.target(), call.args(), timeoutNanos, time::nanoTime);
      return BucketGroups.acquired(read(r.text()), takes, r.receivedAtNanos());
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e.getMessage() + " (redisTimeout " + Duration.ofNanos(timeoutNanos).toMillis() + " ms)", e);
    }
  }

  @Override
  public CompletionStage<Acquired> acquireAsync(List<Take> takes, Duration maxWait, List<Give> gives,
      List<Credit> credits) {
    return acquireAsync(takes, maxWait, gives, credits, null);
  }

  @Override
  public CompletionStage<Acquired> acquireAsync(List<Take> takes, Duration maxWait, List<Give> gives,
      List<Credit> credits, Standing standing) {
    Call call = call(takes, maxWait, gives, credits, standing);
    return SCRIPT.callAsync(call.target(), call.args(), timeoutNanos, time::nanoTime).handle((r, failure) -> {
      try {
        if (failure != null) {
          Throwable cause = Async.cause(failure);
          throw unavailable(cause instanceof TimeoutException ? "Redis did not answer within the timeout"
              : String.valueOf(cause.getMessage()), cause);
        }
        return BucketGroups.acquired(read(r.text()), takes, r.receivedAtNanos());
      } catch (StoreUnavailableException e) {
        throw new CompletionException(e);
      }
    });
  }

  @Override
  public void give(List<Give> gives, List<Credit> credits) throws StoreUnavailableException, InterruptedException {
    if (gives.isEmpty() && credits.isEmpty()) {
      return;
    }
    Call call = call(List.of(), Duration.ZERO, gives, credits, null);
    try {
      read(SCRIPT.call(call.target(), call.args(), timeoutNanos, time::nanoTime).text());
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e.getMessage(), e);
    }
  }

  @Override
  public boolean redeem(String creditId, double maxRefund) throws StoreUnavailableException, InterruptedException {
    Checks.keyName("creditId", creditId);
    Checks.tokens("maxRefund", maxRefund);
    String key = base + "c:" + creditId;
    try {
      return "1".equals(SCRIPT.call(LuaScript.target(scripts, key), GroupProtocol.redeem(base, maxRefund,
          standingMillis, clientMicros()), timeoutNanos, time::nanoTime).text());
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e.getMessage(), e);
    }
  }

  private record Call(LuaScript.Target target, Object[] args) {}

  private Call call(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits,
      Standing standing) {
    long maxWaitMicros = Checks.saturatedMicros(Checks.notNegative("maxWait", maxWait));
    List<GroupStep.Part> parts = BucketGroups.parts(takes, gives, standing);
    List<Object> keys = new ArrayList<>();
    parts.forEach(p -> keys.add(key(p.name())));
    credits.forEach(c -> keys.add(base + "c:" + c.id()));
    String routing = keys.isEmpty() ? base + "b:" : (String) keys.get(0);
    return new Call(LuaScript.target(scripts, routing, keys), GroupProtocol.acquire(parts, maxWaitMicros,
        BucketGroups.gifts(gives), BucketGroups.memos(credits), BucketGroups.standing(parts, standing),
        standingMillis, clientMicros()));
  }

  private Long clientMicros() {
    return clientClock == null ? null : ChronoUnit.MICROS.between(Instant.EPOCH, clientClock.instant());
  }

  private GroupStep.Reply read(String text) throws StoreUnavailableException {
    try {
      return GroupProtocol.reply(text);
    } catch (IllegalArgumentException e) {
      throw unavailable(e.getMessage(), e);
    }
  }

  private StoreUnavailableException unavailable(String message, Throwable cause) {
    return new StoreUnavailableException(name, message, cause);
  }

  @Override
  public String toString() {
    return "RedisBucketGroup{" + base + "}";
  }
}
