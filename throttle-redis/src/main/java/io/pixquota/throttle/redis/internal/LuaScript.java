package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.support.Async;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Lua script kept in a resource and called by its SHA1 (EVALSHA). The SHA is computed locally, so the common path
 * is exactly one round trip; on NOSCRIPT (a restarted Redis, a failover, {@code SCRIPT FLUSH}) the call is sent once
 * more as an EVAL of the script's body, routed by the key like the EVALSHA.
 */
public final class LuaScript {
  private static final Logger LOG = LoggerFactory.getLogger(LuaScript.class);
  /** The token bucket's script ({@code token_bucket.lua}), one per process. */
  public static final LuaScript TOKEN_BUCKET = fromResource("token_bucket.lua");
  /** The bucket group's script: several buckets decided together. */
  public static final LuaScript BUCKET_GROUP = fromResource("bucket_group.lua");
  /** The permit pool's script: permits with leases, and a line of waiters. */
  public static final LuaScript PERMIT_POOL = fromResource("permit_pool.lua");
  /**
   * The permit pool's script with the token bucket's step inside it ({@code token_bucket.lua} as a function where
   * {@code permit_pool.lua} has its marker line): a permit and a rate slot in one decision.
   */
  public static final LuaScript PERMIT_AND_BUCKET = new LuaScript(text("permit_pool.lua").replace("\n--@BUCKET@\n",
      "\nKO, AO = 1, 2\nlocal function bucket_step()\n" + text("token_bucket.lua") + "\nend\n"));

  /** How long a preload waits for a client that has not connected yet: a cold JVM on a busy machine takes seconds. */
  public static final long CONNECT_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final String source;
  private final String sha;
  private final LongAdder noScript = new LongAdder();

  private LuaScript(String source) {
    this.source = source;
    this.sha = sha1(source);
  }

  /** Reads a script from the classpath, next to this class. */
  public static LuaScript fromResource(String name) {
    return new LuaScript(text(name));
  }

  private static String text(String name) {
    try (InputStream in = LuaScript.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("script resource missing: " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Thrown by {@link #call} when Redis fails or does not answer in time. */
  public static final class CallFailedException extends Exception {
    private static final long serialVersionUID = 1L;

    CallFailedException(String message, Throwable cause) {
      super(message, cause);
    }

    /** Whether it may pass by itself soon: the node unreachable or silent, or a failover under way. */
    public boolean passing() {
      return RedisErrors.isPassing(getCause());
    }
  }

  /**
   * A reply, and when it reached this process by the caller's clock, read on the I/O thread that received it.
   *
   * @param text the script's reply, one string
   */
  public record Reply(String text, long receivedAtNanos) {}

  /**
   * Where a script runs: a key, and the client with its connect guard, made once per key (not per call: the hot path
   * of a bucket's every decision).
   */
  public record Target(ScriptClient client, ConnectGuard guard, String key, List<Object> keys) {}

  /** The target of calls on {@code key} through {@code client}. */
  public static Target target(ScriptClient client, String key) {
    return target(client, key, List.of(key));
  }

  /** The target of calls on {@code keys}, routed by {@code key} (keys of one hash tag: one slot of a Cluster). */
  public static Target target(ScriptClient client, String key, List<Object> keys) {
    return new Target(client, client.guard(), key, List.copyOf(keys));
  }

  /**
   * Runs the script on {@code key} with {@code args}, waiting at most {@code timeoutNanos} of real time in all.
   *
   * @param clock read when the reply arrives, for {@link Reply#receivedAtNanos()}
   */
  public Reply call(ScriptClient client, String key, Object[] args, long timeoutNanos, LongSupplier clock)
      throws InterruptedException, CallFailedException {
    return call(target(client, key), args, timeoutNanos, clock);
  }

  /**
   * {@link #call(ScriptClient, String, Object[], long, LongSupplier)} on a target made once. The caller's own wait
   * bounds the EVALSHA (no timer task per call: scheduling one woke the JDK's timeout thread at every call, a
   * context switch on the hot path), and the reply's arrival is read on the I/O thread that receives it; after
   * NOSCRIPT the body is waited for within a timeout of its own.
   */
  public Reply call(Target target, Object[] args, long timeoutNanos, LongSupplier clock)
      throws InterruptedException, CallFailedException {
    CompletableFuture<String> sent = evalSha(target, args);
    try {
      return await(sent.thenApply(text -> new Reply(text, clock.getAsLong())), sent,
          System.nanoTime() + timeoutNanos);
    } catch (ExecutionException e) {
      Throwable cause = Async.cause(e);
      if (!RedisErrors.isNoScript(cause)) {
        throw new CallFailedException("Redis call failed: " + RedisErrors.describe(cause), cause);
      }
    }
    CompletableFuture<Reply> body = new CompletableFuture<>();
    sendBody(target, args, clock, body, timeoutNanos);
    try {
      return await(body, body, System.nanoTime() + timeoutNanos);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof CallFailedException f ? f
          : new CallFailedException("Redis call failed: " + RedisErrors.describe(e.getCause()), e.getCause());
    }
  }

  /**
   * The same without blocking any thread: the future completes on the client's I/O thread with the reply, or
   * exceptionally with a {@link CallFailedException} when Redis fails or does not answer within
   * {@code timeoutNanos} (after NOSCRIPT, the body is sent within a timeout of its own: a script's first use on a
   * node is not charged to the caller's).
   */
  public CompletableFuture<Reply> callAsync(ScriptClient client, String key, Object[] args, long timeoutNanos,
      LongSupplier clock) {
    return callAsync(target(client, key), args, timeoutNanos, clock);
  }

  /** {@link #callAsync(ScriptClient, String, Object[], long, LongSupplier)} on a target made once. */
  public CompletableFuture<Reply> callAsync(Target target, Object[] args, long timeoutNanos, LongSupplier clock) {
    return send(target, args, clock, timeoutNanos).handle((reply, failure) -> {
      if (failure == null) {
        return reply;
      }
      throw new CompletionException(Async.cause(failure));
    });
  }

  /**
   * EVALSHA within {@code timeoutNanos}, and on NOSCRIPT the body within as long again (the first use of the script on
   * a node: its load is not charged to the call); failures as {@link CallFailedException}.
   */
  private CompletableFuture<Reply> send(Target target, Object[] args, LongSupplier clock, long timeoutNanos) {
    CompletableFuture<Reply> result = new CompletableFuture<>();
    // Completed on the thread that completes the client's future (its I/O thread): the receive time is not delayed by
    // however long the caller's thread takes to be scheduled again. Sent through the client's guard, so that
    // the client's lazy connect never blocks the caller; a caller that gives up first (result done) sends nothing.
    CompletableFuture<String> sent = evalSha(target, args).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    result.whenComplete((reply, failure) -> sent.cancel(false));
    sent.whenComplete((text, failure) -> {
          if (failure == null) {
            result.complete(new Reply(text, clock.getAsLong()));
          } else if (Async.cause(failure) instanceof TimeoutException) {
            result.completeExceptionally(new CallFailedException("Redis did not answer within the timeout",
                Async.cause(failure)));
          } else if (!RedisErrors.isNoScript(failure)) {
            result.completeExceptionally(new CallFailedException("Redis call failed: "
                + RedisErrors.describe(Async.cause(failure)), Async.cause(failure)));
          } else {
            sendBody(target, args, clock, result, timeoutNanos);
          }
        });
    return result;
  }

  /**
   * After NOSCRIPT (a restarted node, a promoted replica, SCRIPT FLUSH): EVAL with the body, routed by the key like the
   * EVALSHA was, so it reaches the node that owns the key now (a separate SCRIPT LOAD can reach a stale master during
   * a cluster failover), runs the script, and leaves it cached there: one extra round trip, once per node.
   */
  private void sendBody(Target target, Object[] args, LongSupplier clock, CompletableFuture<Reply> result,
      long timeoutNanos) {
    noScript.increment();
    LOG.debug("Script {} not in the cache of the node that serves '{}' (NOSCRIPT); sending its body", sha,
        target.key());
    CompletableFuture<String> body = target.client().eval(source, target.key(), target.keys(), args)
        .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS);
    result.whenComplete((reply, failure) -> body.cancel(false));
    body.whenComplete((text, again) -> {
          if (again == null) {
            result.complete(new Reply(text, clock.getAsLong()));
          } else if (Async.cause(again) instanceof TimeoutException) {
            result.completeExceptionally(new CallFailedException("Redis did not answer within the timeout, after "
                + "NOSCRIPT", Async.cause(again)));
          } else {
            result.completeExceptionally(new CallFailedException("Redis call failed after NOSCRIPT: "
                + RedisErrors.describe(Async.cause(again)), Async.cause(again)));
          }
        });
  }

  /** How many calls met NOSCRIPT and sent the script's body instead, since this process started. */
  public long noScriptCount() {
    return noScript.sum();
  }

  public String sha() {
    return sha;
  }

  public String source() {
    return source;
  }

  void countNoScript() {
    noScript.increment();
  }

  /** EVALSHA of this script on the target, through the client's connect guard. */
  private CompletableFuture<String> evalSha(Target target, Object[] args) {
    return target.guard().send(() -> target.client().evalSha(sha, target.key(), target.keys(), args));
  }

  private static <T> T await(CompletableFuture<T> future, long deadlineNanos)
      throws InterruptedException, ExecutionException, CallFailedException {
    return await(future, future, deadlineNanos);
  }

  /** {@code future}'s value by the deadline; on a timeout or an interrupt, {@code source} is cancelled. */
  private static <T> T await(CompletableFuture<T> future, Future<?> source, long deadlineNanos)
      throws InterruptedException, ExecutionException, CallFailedException {
    long left = deadlineNanos - System.nanoTime();
    try {
      return future.get(Math.max(0, left), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      source.cancel(false);
      throw new CallFailedException("Redis did not answer within the timeout", e);
    } catch (InterruptedException e) {
      source.cancel(false);
      throw e;
    }
  }

  /** SCRIPT EXISTS on the node that serves {@code key}: whether its calls will find the script cached. */
  public boolean loaded(ScriptClient client, String key, long timeoutNanos)
      throws InterruptedException, CallFailedException {
    try {
      return await(client.guard().send(() -> client.scriptExists(key, sha)), System.nanoTime() + timeoutNanos);
    } catch (ExecutionException e) {
      throw new CallFailedException("SCRIPT EXISTS failed: " + RedisErrors.describe(e.getCause()), e.getCause());
    }
  }

  /**
   * SCRIPT LOAD now, so that the first calls do not meet NOSCRIPT (one round trip). It is the moment to connect: on a
   * client that has not answered yet, it waits for the connect too, up to {@link #CONNECT_BUDGET_NANOS} (or the
   * timeout, when longer); the calls themselves never wait longer than their timeout.
   */
  public void load(ScriptClient client, String key, long timeoutNanos)
      throws InterruptedException, CallFailedException {
    ConnectGuard guard = client.guard();
    long budget = guard.answered() ? timeoutNanos : Math.max(timeoutNanos, CONNECT_BUDGET_NANOS);
    try {
      await(guard.send(() -> client.scriptLoad(key, source)), System.nanoTime() + budget);
    } catch (ExecutionException e) {
      throw new CallFailedException("SCRIPT LOAD failed: " + RedisErrors.describe(e.getCause()), e.getCause());
    }
  }

  private static String sha1(String text) {
    try {
      return HexFormat.of().formatHex(
          MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every JVM", e);
    }
  }
}
