package io.pixquota.throttle.redis;

import io.pixquota.throttle.redis.internal.ScriptClient;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The turns of one {@link RedisPermitPool}'s waiters in this process: the pool's channels complete their futures,
 * with the permits a release granted them ({@code +<waiter> <reply>}, on the channel of this process's Redis client
 * alone: kept here for the waiter's next take, which then needs no round trip) or with the ids of the waiters whose
 * turn it is (on the pool's channel: they ask again); a timer completes them anyway when the first lease ends or
 * half a waiter lease has passed, so a lost message costs a little time, never a
 * place (the script keeps a grant for the waiter's next take).
 */
final class PermitTurns {
  private static final Map<ScriptClient, String> TAGS = Collections.synchronizedMap(new WeakHashMap<>());
  private final ScriptClient scripts;
  private final String channel;
  private final String tag;
  private final TimeSource time;
  private final Map<String, CompletableFuture<Void>> turns = new ConcurrentHashMap<>();
  private final AtomicReference<CompletableFuture<Void>> subscription = new AtomicReference<>();
  private final AtomicReference<Long> firstLeaseEndNanos = new AtomicReference<>();
  private final Map<String, Grant> grants = new ConcurrentHashMap<>(); // by waiter: EXPECTED until granted

  /** A take's reply a release published for a waiter of this process, and when it arrived. */
  record Grant(String reply, long receivedAtNanos) {}

  private static final Grant EXPECTED = new Grant("", 0);

  PermitTurns(ScriptClient scripts, String channel, TimeSource time) {
    this.scripts = scripts;
    this.channel = channel;
    this.tag = TAGS.computeIfAbsent(scripts, c -> PermitPool.Waiter.of(0).id());
    this.time = time;
  }

  /**
   * Where a release publishes this process's grants: a suffix of the pool's channel, one per Redis client, so that a
   * grant wakes only the process (the client) whose waiter it is.
   */
  String tag() {
    return tag;
  }

  /** When the first lease in the pool ends, as the last answer said ({@code null}: none is held). */
  void firstLeaseEnds(Long nanos) {
    firstLeaseEndNanos.set(nanos);
  }

  /** {@code waiter} of this process asks: a grant published for it from now on is kept for its next take. */
  void expect(String waiter) {
    grants.putIfAbsent(waiter, EXPECTED);
  }

  /** The grant published for {@code waiter}, taken (its take needs no round trip), or null; it expects none after. */
  Grant claim(String waiter) {
    Grant g = grants.remove(waiter);
    return g == null || g == EXPECTED ? null : g;
  }

  /** Completes when it may be {@code waiter}'s turn, or after {@code atMost} (bounded as the class says). */
  CompletableFuture<Void> turn(String waiter, Duration atMost) {
    subscribe();
    CompletableFuture<Void> turn = turns.computeIfAbsent(waiter, id -> new CompletableFuture<>());
    Grant granted = grants.get(waiter);
    if (granted != null && granted != EXPECTED) {
      turn.complete(null); // granted before it began to wait
    }
    long until = time.nanoTime() + Math.min(atMost.toNanos(), RedisPermitPool.WAITER_LEASE.toNanos() / 2);
    Long first = firstLeaseEndNanos.get();
    if (first != null && first - until < 0) {
      until = first + 1_000_000; // the first lease ends sooner: the line moves then
    }
    Future<?> timer = time.schedule(() -> turn.complete(null), until);
    turn.whenComplete((v, e) -> {
      timer.cancel(false);
      turns.remove(waiter, turn);
    });
    return turn;
  }

  /** {@code waiter} left: its turn, if it waits for one, ends now; a grant for it is the script's to take back. */
  void end(String waiter) {
    grants.remove(waiter);
    CompletableFuture<Void> turn = turns.remove(waiter);
    if (turn != null) {
      turn.complete(null);
    }
  }

  /**
   * Subscribes now and waits for Redis to confirm it, up to {@code timeoutNanos}; a subscription that fails is tried
   * again within that time (a client's first pub/sub connection can fail while it starts).
   *
   * @return null once confirmed; else why not (the last failure, or the time it waited)
   */
  String subscribeNow(long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    String why = "not confirmed within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms";
    for (long left = timeoutNanos; left > 0; left = deadline - System.nanoTime()) {
      try {
        subscribe().get(left, TimeUnit.NANOSECONDS);
        return null;
      } catch (ExecutionException e) {
        why = "failed: " + e.getCause();
        Thread.sleep(Math.max(1, Math.min(50, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
      } catch (TimeoutException e) {
        return why;
      }
    }
    return why;
  }

  /**
   * A grant ({@code +<waiter> <reply>}) for a waiter this process expects: kept, and its turn completed. Heard on the
   * channel, or first in the reply of the release that made it when the release is this process's: the second news
   * of one grant finds it kept or taken, and does nothing.
   */
  void granted(String message, long at) {
    int space = message.indexOf(' ');
    if (!message.startsWith("+") || space < 2) {
      return;
    }
    String waiter = message.substring(1, space);
    if (grants.replace(waiter, EXPECTED, new Grant(message.substring(space + 1), at))) {
      CompletableFuture<Void> turn = turns.get(waiter);
      if (turn != null) {
        turn.complete(null);
      }
    }
  }

  /**
   * Subscribes to the pool's channel and this client's grants once; a failed subscription is tried again by the next
   * wait (a channel it did subscribe to is left first).
   */
  private CompletableFuture<Void> subscribe() {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> current = subscription.compareAndExchange(null, mine);
    if (current != null) {
      return current;
    }
    // through the client's guard: a client that has not connected yet connects on its thread, not the caller's
    CompletableFuture<Runnable> toShared = scripts.guard().send(() -> scripts.subscribe(channel, this::heard));
    CompletableFuture<Runnable> toOwn = scripts.guard().send(() -> scripts.subscribe(channel + ":" + tag,
        this::heard));
    CompletableFuture.allOf(toShared, toOwn).whenComplete((v, failure) -> {
      if (failure == null) {
        mine.complete(null);
        return;
      }
      toShared.thenAccept(Runnable::run);
      toOwn.thenAccept(Runnable::run);
      subscription.compareAndSet(mine, null); // the timers still move the line; the next wait subscribes again
      mine.completeExceptionally(failure);
    });
    return mine;
  }

  /** A message on either channel: a grant, or the ids of waiters whose turn it is. */
  private void heard(String message) {
    if (message.startsWith("+")) {
      granted(message, time.nanoTime());
      return;
    }
    for (String id : message.split(",")) {
      CompletableFuture<Void> turn = turns.get(id);
      if (turn != null) {
        turn.complete(null);
      }
    }
  }
}
