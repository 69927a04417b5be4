package io.pixquota.throttle.redis;

import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.ScriptClient;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link PermitPool} in Redis ({@code permit_pool.lua}): permits leased under their callers' ids, a line of waiters
 * by class, then deadline (earliest first), then arrival. A release grants the waiters at the head of the line their
 * permits (and, beside a bucket, their slots) in the same step and publishes each grant on the pool's channel, so the
 * waiter's next take is answered here without a round trip; a waiter of an older release is told its turn instead.
 * Every process that uses the pool registers its capacity and lease there: the capacity in force is the smallest any
 * live process asks for, and a permit is taken back only after the longest lease of any live process, so services
 * with other timeouts share one pool without breaking its cap.
 * {@link #close()} takes this process's configuration out. Created {@link #beside} a {@link RedisTokenBucket}, its
 * keys share the bucket's hash tag and a call's permit and rate slot are decided in one script
 * ({@code PERMIT_AND_BUCKET}), both or neither, in one round trip. Threadsafe; it does not own the
 * Redis client behind its {@link RedisStore}.
 */
public final class RedisPermitPool implements PermitPool {
  /** How long a waiter keeps its place in line without asking again; a waiter asks again within half of it. */
  public static final Duration WAITER_LEASE = Duration.ofSeconds(3);

  private final ScriptClient scripts;
  private final String name;
  private final int capacity;
  private final Duration lease;
  private final RedisTokenBucket beside; // null: alone
  private final List<Object> keys;
  private final String channel;
  private final long timeoutNanos;
  private final TimeSource time;
  private final PermitTurns turns;
  private final String processId = PermitPool.Waiter.of(0).id();
  private final PoolReplies replies;
  private final PoolCalls calls;

  private RedisPermitPool(ScriptClient scripts, String name, int capacity, Duration lease, String base,
      RedisTokenBucket beside, Duration redisTimeout, TimeSource time) {
    this.scripts = Objects.requireNonNull(scripts, "client cannot be null");
    this.name = Checks.poolName(name);
    this.capacity = Checks.poolCapacity(capacity);
    this.lease = Checks.positiveAtMostADay("lease", lease);
    if (lease.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("lease must be at least 100 ms, but was " + lease);
    }
    this.beside = beside;
    this.keys = List.of(base + "permits", base + "line", base + "waiters", base + "tickets", base + "configs",
        base + "taken", base + "asks", base + "grants");
    this.channel = base + "permits:turn";
    this.timeoutNanos = Checks.positiveAtMostADay("redisTimeout", redisTimeout).toNanos();
    this.time = time;
    this.turns = new PermitTurns(scripts, channel, time);
    this.replies = new PoolReplies(this.name, capacity, lease, beside, turns);
    this.calls = new PoolCalls(scripts, keys, beside, capacity, lease, processId, turns.tag());
  }

  /** A pool alone on {@code store} (Redisson or Lettuce), keys {@code <prefix>{<name>}:pool:*}, default settings. */
  public static RedisPermitPool create(RedisStore store, String name, int capacity, Duration lease) {
    return new RedisPermitPool(Stores.scripts(store), name, capacity, lease,
        TokenBucketConfig.DEFAULT_KEY_PREFIX + "{" + name + "}:pool:", null, TokenBucketConfig.DEFAULT_REDIS_TIMEOUT,
        TimeSource.SYSTEM);
  }

  /**
   * A pool beside {@code bucket}: its keys in the bucket's slot ({@code <prefix>{<bucket>}:pool:<name>:*}), and a call
   * that asks for both decided in one script.
   */
  public static RedisPermitPool beside(RedisTokenBucket bucket, String name, int capacity, Duration lease) {
    TokenBucketConfig c = bucket.config();
    return new RedisPermitPool(bucket.scripts(), name, capacity, lease, c.keyPrefix() + "{" + c.name() + "}:pool:"
        + name + ":", bucket, c.redisTimeout(), TimeSource.SYSTEM);
  }

  /** For tests: under {@code keyPrefix}, answers stamped on {@code time}. */
  static RedisPermitPool create(RedisStore store, String name, int capacity, Duration lease, String keyPrefix,
      TimeSource time) {
    return new RedisPermitPool(Stores.scripts(store), name, capacity, lease, keyPrefix + "{" + name + "}:pool:", null,
        TokenBucketConfig.DEFAULT_REDIS_TIMEOUT, time);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  @Override
  public Duration lease() {
    return lease;
  }

  /**
   * The pool's keys: permits, line, waiters' leases, tickets, the processes' configurations, the permits' takes, the
   * waiters' asks, the permits granted by a release.
   */
  public List<Object> keys() {
    return keys;
  }

  @Override
  public PermitAnswer take(Waiter waiter, SlotAsk slot) throws StoreUnavailableException, InterruptedException {
    PoolCalls.Call call = calls.take(waiter, slot);
    PermitAnswer kept = kept(waiter, call);
    if (kept != null) {
      return kept;
    }
    turns.expect(waiter.id());
    try {
      LuaScript.Reply r = call.script().call(call.target(), call.args(), timeoutNanos, time::nanoTime);
      return expecting(waiter, read(waiter, call.withSlot(), r.text(), r.receivedAtNanos()));
    } catch (LuaScript.CallFailedException e) {
      turns.end(waiter.id());
      throw unavailable(e.getMessage(), e);
    } catch (StoreUnavailableException | RuntimeException e) {
      turns.end(waiter.id());
      throw e;
    }
  }

  @Override
  public CompletionStage<PermitAnswer> takeAsync(Waiter waiter, SlotAsk slot) {
    PoolCalls.Call call = calls.take(waiter, slot);
    try {
      PermitAnswer kept = kept(waiter, call);
      if (kept != null) {
        return CompletableFuture.completedFuture(kept);
      }
    } catch (StoreUnavailableException e) {
      return CompletableFuture.failedFuture(e);
    }
    turns.expect(waiter.id());
    return call.script().callAsync(call.target(), call.args(), timeoutNanos, time::nanoTime)
        .handle((r, failure) -> {
          try {
            if (failure != null) {
              throw unavailable(String.valueOf(Async.cause(failure).getMessage()), Async.cause(failure));
            }
            return expecting(waiter, read(waiter, call.withSlot(), r.text(), r.receivedAtNanos()));
          } catch (StoreUnavailableException | RuntimeException e) {
            turns.end(waiter.id());
            throw e instanceof RuntimeException re ? re : new CompletionException(e);
          }
        });
  }

  /** The grant a release published for {@code waiter} and this process kept, read (no round trip); null: none. */
  private PermitAnswer kept(Waiter waiter, PoolCalls.Call call) throws StoreUnavailableException {
    PermitTurns.Grant granted = turns.claim(waiter.id());
    return granted == null ? null : read(waiter, call.withSlot(), granted.reply(), granted.receivedAtNanos());
  }

  /**
   * After the script answered {@code waiter}: a grant published for it before that is spent (the script answers a
   * waiter it granted with that permit, never with a place in line), so it is dropped; a waiter in line expects one.
   */
  private PermitAnswer expecting(Waiter waiter, PermitAnswer answer) {
    turns.claim(waiter.id());
    if (answer.permit() == null && !answer.refusedAtOnce() && answer.acquisition() == null) {
      turns.expect(waiter.id());
    }
    return answer;
  }

  @Override
  public CompletionStage<Boolean> release(Permit permit) {
    Objects.requireNonNull(permit, "permit cannot be null");
    PoolCalls.Call call = calls.op("release", permit.id());
    return call.script().callAsync(call.target(), call.args(), timeoutNanos, time::nanoTime)
        .thenApply(r -> "1".equals(countsAndGrants(r)));
  }

  @Override
  public void leave(Waiter waiter) {
    turns.end(waiter.id());
    PoolCalls.Call call = calls.op("leave", waiter.id());
    call.script().callAsync(call.target(), call.args(), timeoutNanos, time::nanoTime)
        .thenAccept(this::countsAndGrants); // best effort: a place not left ends with its waiter lease
  }

  /**
   * A release's or a leave's reply: the pool's counts, then each grant the step made, as published; a grant for a
   * waiter of this process is its turn now, without waiting for the channel. Returns the reply's first word.
   */
  private String countsAndGrants(LuaScript.Reply r) {
    String[] lines = r.text() == null ? new String[] {""} : r.text().split("\n");
    for (int i = 1; i < lines.length; i++) {
      turns.granted(lines[i], r.receivedAtNanos());
    }
    return replies.counts(lines[0]);
  }

  /**
   * Takes this process's configuration out of the pool (its capacity and lease no longer count for the fleet), best
   * effort: one that is not taken out ends with its lease. Call it once this process makes no more calls.
   */
  @Override
  public void close() {
    try {
      PoolCalls.Call call = calls.op("close", "");
      call.script().callAsync(call.target(), call.args(), timeoutNanos, time::nanoTime).toCompletableFuture()
          .get(timeoutNanos, TimeUnit.NANOSECONDS); // before a client that shuts down with it
    } catch (ExecutionException | TimeoutException e) {
      // best effort: the configuration ends with its lease
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public CompletionStage<Void> turn(Waiter waiter, Duration atMost) {
    return turns.turn(waiter.id(), atMost);
  }

  /**
   * Subscribes to the pool's turns and loads its scripts now, waiting for Redis (up to the Redis timeout, or the
   * connect budget on a client that has not answered yet).
   */
  @Override
  public void preload() throws StoreUnavailableException, InterruptedException {
    long budget = Math.max(timeoutNanos, LuaScript.CONNECT_BUDGET_NANOS);
    try {
      LuaScript.PERMIT_POOL.load(scripts, (String) keys.get(0), timeoutNanos);
      if (beside != null) {
        LuaScript.PERMIT_AND_BUCKET.load(scripts, beside.config().key(), timeoutNanos);
      }
    } catch (LuaScript.CallFailedException e) {
      throw unavailable(e.getMessage(), e);
    }
    String failed = turns.subscribeNow(budget);
    if (failed != null) {
      throw unavailable("the subscription to " + channel + " " + failed, null);
    }
  }

  @Override
  public Readings readings() {
    return replies.readings();
  }

  private PermitAnswer read(Waiter waiter, boolean withSlot, String text, long at) throws StoreUnavailableException {
    try {
      PermitAnswer answer = replies.read(waiter, withSlot, text, at);
      if (answer != null) {
        return answer;
      }
    } catch (RuntimeException e) {
      throw unavailable("not a reply of the pool's script: '" + text + "'", e);
    }
    throw unavailable("not a reply of the pool's script: '" + text + "'", null);
  }

  private StoreUnavailableException unavailable(String message, Throwable cause) {
    return new StoreUnavailableException(name, message + " (redisTimeout " + timeoutNanos / 1_000_000 + " ms)",
        cause);
  }

  @Override
  public String toString() {
    return "RedisPermitPool{" + keys.get(0) + ", " + capacity + " in flight, lease " + lease + "}";
  }
}
