package io.pixquota.throttle.redis;

import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The turns of one {@link RedisPermitPool}'s waiters in this process: the pool's channel (the ids of the waiters whose
 * turn it is, published by the script) completes their futures; a timer completes them anyway when the first lease
 * ends or half a waiter lease has passed, so a lost message costs a little time, never a place.
 */
final class PermitTurns {
  private final RedissonClient redisson;
  private final String channel;
  private final TimeSource time;
  private final Map<String, CompletableFuture<Void>> turns = new ConcurrentHashMap<>();
  private final AtomicReference<CompletableFuture<Void>> subscription = new AtomicReference<>();
  private final AtomicReference<Long> firstLeaseEndNanos = new AtomicReference<>();

  PermitTurns(RedissonClient redisson, String channel, TimeSource time) {
    this.redisson = redisson;
    this.channel = channel;
    this.time = time;
  }

  /** When the first lease in the pool ends, as the last answer said ({@code null}: none is held). */
  void firstLeaseEnds(Long nanos) {
    firstLeaseEndNanos.set(nanos);
  }

  /** Completes when it may be {@code waiter}'s turn, or after {@code atMost} (bounded as the class says). */
  CompletableFuture<Void> turn(String waiter, Duration atMost) {
    subscribe();
    CompletableFuture<Void> turn = turns.computeIfAbsent(waiter, id -> new CompletableFuture<>());
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

  /** {@code waiter} left: its turn, if it waits for one, ends now. */
  void end(String waiter) {
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

  /** Subscribes to the pool's channel once; a failed subscription is tried again by the next wait. */
  private CompletableFuture<Void> subscribe() {
    CompletableFuture<Void> mine = new CompletableFuture<>();
    CompletableFuture<Void> current = subscription.compareAndExchange(null, mine);
    if (current != null) {
      return current;
    }
    redisson.getTopic(channel, StringCodec.INSTANCE).addListenerAsync(String.class, (c, message) -> {
      for (String id : message.split(",")) {
        CompletableFuture<Void> turn = turns.get(id);
        if (turn != null) {
          turn.complete(null);
        }
      }
    }).whenComplete((id, failure) -> {
      if (failure != null) {
        subscription.compareAndSet(mine, null); // the timers still move the line; the next wait subscribes again
        mine.completeExceptionally(failure);
      } else {
        mine.complete(null);
      }
    });
    return mine;
  }
}
