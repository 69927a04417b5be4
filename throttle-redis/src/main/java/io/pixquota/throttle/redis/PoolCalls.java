package io.pixquota.throttle.redis;

import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.ScriptClient;
import io.pixquota.throttle.store.PermitPool.SlotAsk;
import io.pixquota.throttle.store.PermitPool.Waiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link RedisPermitPool} calls its script: which one, on which keys, with which arguments. Beside a bucket every
 * operation but close runs the script with the bucket inside ({@code PERMIT_AND_BUCKET}), so that the grants it makes
 * to the waiters at the head of the line book their slots with what they stored; an operation without a slot of its
 * own sends two empty bucket arguments. Immutable.
 */
final class PoolCalls {
  private final ScriptClient scripts;
  private final List<Object> keys;
  private final RedisTokenBucket beside; // null: alone
  private final String[] config; // capacity, lease ms, process id
  private final String hears; // where this process hears its grants: a suffix of the pool's channel

  /** One call: its script, its target, its arguments, and whether it books a slot of its own. */
  record Call(LuaScript script, LuaScript.Target target, Object[] args, boolean withSlot) {}

  PoolCalls(ScriptClient scripts, List<Object> keys, RedisTokenBucket beside, int capacity, Duration lease,
      String processId, String hears) {
    this.scripts = scripts;
    this.hears = hears;
    this.keys = keys;
    this.beside = beside;
    this.config = new String[] {Integer.toString(capacity), Long.toString(lease.toMillis()), processId};
  }

  /** A release, a leave or a close: this process's configuration, and the id it concerns. */
  Call op(String op, String id) {
    Object[] pool = {op, config[0], config[1], config[2], id};
    return beside == null || "close".equals(op) ? new Call(LuaScript.PERMIT_POOL, alone(), pool, false)
        : new Call(LuaScript.PERMIT_AND_BUCKET, withBucket(), join(new Object[] {"", ""}, pool), false);
  }

  /** A take by {@code waiter}, with its slot on the bucket beside when {@code slot} asks for one there. */
  Call take(Waiter waiter, SlotAsk slot) {
    Objects.requireNonNull(waiter, "waiter cannot be null");
    boolean withSlot = slot != null && beside != null && slot.bucket() instanceof RedisTokenBucket b
        && b.sameBucket(beside);
    Object[] pool = {"take", config[0], config[1], config[2], waiter.id(), Integer.toString(waiter.rank()),
        Long.toString(RedisPermitPool.WAITER_LEASE.toMillis()), withSlot ? "1" : "0",
        Long.toString(waiter.maxWait().toMillis()), hears};
    if (beside == null) {
      return new Call(LuaScript.PERMIT_POOL, alone(), pool, false);
    }
    Object[] bucket = withSlot ? ((RedisTokenBucket) slot.bucket()).acquireArgs(slot.cost(), slot.maxWait())
        : new Object[] {"", ""};
    return new Call(LuaScript.PERMIT_AND_BUCKET, withBucket(), join(bucket, pool), withSlot);
  }

  /** The pool's own keys, its first the routing key. */
  private LuaScript.Target alone() {
    return LuaScript.target(scripts, (String) keys.get(0), keys);
  }

  private LuaScript.Target withBucket() {
    List<Object> all = new ArrayList<>();
    all.add(beside.config().key());
    all.addAll(keys);
    return LuaScript.target(scripts, beside.config().key(), all);
  }

  private static Object[] join(Object[] first, Object[] then) {
    Object[] all = new Object[first.length + then.length];
    System.arraycopy(first, 0, all, 0, first.length);
    System.arraycopy(then, 0, all, first.length, then.length);
    return all;
  }
}
