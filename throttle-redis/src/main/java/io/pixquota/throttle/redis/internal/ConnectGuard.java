package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.support.Async;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Keeps a client's lazy start off the caller's thread (Redisson's lazy initialization, Lettuce's first connect). A
 * Redisson client made with lazy initialization (as
 * {@code RedisAddress.connect} makes them, so that a client built while Redis is down recovers by itself) connects
 * inside the first command, blocking the thread that sends it until the connection is up or given up: measured here,
 * 2.3 s for a Redis that accepts TCP but does not answer and 8 s for a TLS mismatch, with a 1 s timeout, on the
 * caller of an async call too. Until a client has answered once, its commands are sent from a thread of its own (one
 * per client, gone when idle), and the caller gets a future at once: the blocking caller waits on it no longer than
 * its timeout, the async one not at all. A command whose caller has given up by the time that thread gets to it is
 * not sent (no slot is booked for nobody). Once the client has answered, commands go straight to the client.
 * Threadsafe.
 */
public final class ConnectGuard {
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ThreadPoolExecutor connecting;
  private volatile boolean answered;
  private volatile BooleanSupplier ready = () -> true; // asked before a command while the client has not answered

  private ConnectGuard() {
    this.connecting = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "pixquota-redis-connect-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    connecting.allowCoreThreadTimeOut(true);
  }

  /** A guard for one client (its {@link ScriptClient} holds it, for every bucket on it). */
  public static ConnectGuard create() {
    return new ConnectGuard();
  }

  /**
   * Sends a command: straight away once the client has answered; before that, from the guard's thread, and the
   * returned future completes when the client's does. Complete (or time out) the returned future to give up: a command
   * not sent yet then never is.
   */
  public <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> command) {
    if (answered) {
      return command.get(); // the hot path: nothing more to learn from the reply
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    connecting.execute(() -> {
      if (result.isDone()) {
        return; // its caller gave up while the client was connecting: not sent
      }
      if (!answered && !ready.getAsBoolean()) { // its first connect would fail, and the client with it for good
        result.completeExceptionally(new RedisFailure(RedisFailure.Kind.UNREACHABLE,
            "Redis node unreachable (the master the Sentinels name cannot be reached yet: a failover under way?)",
            "RedisConnectionException", null));
        return;
      }
      try {
        watched(command.get()).whenComplete((value, failure) -> {
          if (failure == null) {
            result.complete(value);
          } else {
            result.completeExceptionally(failure);
          }
        });
      } catch (RuntimeException e) {
        result.completeExceptionally(e);
      }
    });
    return result;
  }

  /**
   * What to ask before a command while the client has not answered yet: false fails the command as Redis unreachable
   * without giving it to the client ({@link SentinelProbe}, for a Sentinel client of the SDK's own).
   */
  public void readyWhen(BooleanSupplier ready) {
    this.ready = ready;
  }

  /** Whether the client has answered a command (after which commands are sent from the caller's thread). */
  public boolean answered() {
    return answered;
  }

  /** Notes that Redis answered: a reply, or an error of Redis's own (not a connection that failed or timed out). */
  private <T> CompletableFuture<T> watched(CompletableFuture<T> sent) {
    return sent.whenComplete((value, failure) -> {
      Throwable cause = failure == null ? null : Async.cause(failure);
      if (cause == null || !(cause instanceof RedisFailure f) || f.kind() == RedisFailure.Kind.ANSWERED) {
        answered = true;
      }
    });
  }
}
