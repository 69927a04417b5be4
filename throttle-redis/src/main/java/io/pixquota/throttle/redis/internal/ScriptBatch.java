package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.support.Async;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Several calls of one script on one key in one pipeline (a Redisson batch; on Lettuce, commands written back to back
 * on the connection of the key's node): written together on one connection, run
 * by Redis in the order given, one round trip for all. What a process's queued bookings of one bucket need: the order
 * they were asked in, without one round trip each. Calls that meet NOSCRIPT are sent again, still in order, in a second
 * batch whose first call carries the script's body (which caches it for the calls behind it); that batch has a
 * timeout of its own, as a single call's body has.
 */
public final class ScriptBatch {
  private ScriptBatch() {}

  /**
   * Runs {@code script} on the target once per element of {@code calls}, in order. Each future completes on
   * the client's I/O thread with its reply, or exceptionally with a {@link LuaScript.CallFailedException} when Redis
   * fails or does not answer within {@code timeoutNanos}.
   *
   * @param clock read when a reply arrives, for {@link LuaScript.Reply#receivedAtNanos()}
   */
  public static List<CompletableFuture<LuaScript.Reply>> callAll(LuaScript script, LuaScript.Target target,
      List<Object[]> calls, long timeoutNanos, LongSupplier clock) {
    List<CompletableFuture<LuaScript.Reply>> results = new ArrayList<>(calls.size());
    for (int i = 0; i < calls.size(); i++) {
      results.add(new CompletableFuture<>());
    }
    send(script, target, calls, results, false, timeoutNanos, clock);
    return results;
  }

  private static void send(LuaScript script, LuaScript.Target target, List<Object[]> calls,
      List<CompletableFuture<LuaScript.Reply>> results, boolean bodyFirst, long timeoutNanos, LongSupplier clock) {
    int n = calls.size();
    List<CompletableFuture<String>> sent = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      sent.add(new CompletableFuture<String>().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS));
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    // Through the client's guard, as a single call: a client that has not connected yet never blocks the caller, and
    // a batch whose calls have all timed out before the guard's thread got to it is not sent.
    List<ScriptClient.ScriptCall> batch = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      batch.add(new ScriptClient.ScriptCall(script.sha(), bodyFirst && i == 0 ? script.source() : null,
          calls.get(i)));
    }
    CompletableFuture<Void> written = target.guard().send(() -> target.client().pipeline(target.key(),
        target.keys(), batch, sent)).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    written.whenComplete((ignored, failure) -> {
      if (failure != null) {
        sent.forEach(s -> s.completeExceptionally(Async.cause(failure))); // not sent, or the batch failed
      }
    });
    all.whenComplete((ignored, failure) -> settle(script, target, calls, results, sent, bodyFirst, timeoutNanos,
        clock));
  }

  /** Each call's outcome to its result; those that met NOSCRIPT (on a first try) sent again, in order. */
  private static void settle(LuaScript script, LuaScript.Target target, List<Object[]> calls,
      List<CompletableFuture<LuaScript.Reply>> results, List<CompletableFuture<String>> sent, boolean bodyFirst,
      long timeoutNanos, LongSupplier clock) {
    long receivedAt = clock.getAsLong();
    List<Object[]> again = new ArrayList<>();
    List<CompletableFuture<LuaScript.Reply>> againResults = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      CompletableFuture<String> s = sent.get(i);
      CompletableFuture<LuaScript.Reply> result = results.get(i);
      Throwable failure = s.isCompletedExceptionally() ? failureOf(s) : null;
      if (failure == null) {
        result.complete(new LuaScript.Reply(s.join(), receivedAt));
      } else if (failure instanceof TimeoutException) {
        result.completeExceptionally(new LuaScript.CallFailedException("Redis did not answer within the timeout"
            + (bodyFirst ? ", after NOSCRIPT" : ""), failure));
      } else if (!bodyFirst && RedisErrors.isNoScript(failure)) {
        again.add(calls.get(i));
        againResults.add(result);
      } else {
        result.completeExceptionally(new LuaScript.CallFailedException("Redis call failed"
            + (bodyFirst ? " after NOSCRIPT: " : ": ") + RedisErrors.describe(failure), failure));
      }
    }
    if (!again.isEmpty()) {
      script.countNoScript();
      send(script, target, again, againResults, true, timeoutNanos, clock);
    }
  }

  private static Throwable failureOf(CompletableFuture<?> done) {
    try {
      done.join();
      return null;
    } catch (RuntimeException e) {
      return Async.cause(e);
    }
  }
}
