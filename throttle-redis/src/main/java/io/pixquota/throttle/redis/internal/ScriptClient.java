package io.pixquota.throttle.redis.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * All the store needs of a Redis client, and nothing more: scripts by SHA or body on keys of one slot, SCRIPT EXISTS
 * and LOAD on the node that serves a key, an ordered pipeline of script calls, HDEL, and a channel's messages. Every
 * future completes on the client's I/O thread; failures of the client come as a {@link RedisFailure} (a timeout of
 * the caller's own as a {@link java.util.concurrent.TimeoutException}). Strings in, strings out (UTF-8). Cancelling a
 * future that has not been sent yet keeps it from being sent when the client allows it. One per client
 * ({@link RedissonScripts#of}, {@link LettuceScripts#of}); threadsafe.
 */
public interface ScriptClient {
  /** One script call of a pipeline: by SHA, or by its body when {@code source} is not null. */
  record ScriptCall(String sha, String source, Object[] args) {}

  /** The guard that keeps this client's first connect off the callers' threads. */
  ConnectGuard guard();

  /** EVALSHA on the node that serves {@code key} (all of {@code keys} in its slot); the reply as a string. */
  CompletableFuture<String> evalSha(String sha, String key, List<Object> keys, Object[] args);

  /** EVAL of the body, routed as {@link #evalSha}. */
  CompletableFuture<String> eval(String source, String key, List<Object> keys, Object[] args);

  /** SCRIPT EXISTS on the node that serves {@code key}. */
  CompletableFuture<Boolean> scriptExists(String key, String sha);

  /** SCRIPT LOAD on the node that serves {@code key} (or on every master); the SHA. */
  CompletableFuture<String> scriptLoad(String key, String source);

  /**
   * Sends the calls on {@code key} in one pipeline, in order, each call's reply or failure into the future of the same
   * index of {@code into}. The returned future completes once the pipeline has been answered, or exceptionally when it
   * failed as a whole (then every call of {@code into} has failed too).
   */
  CompletableFuture<Void> pipeline(String key, List<Object> keys, List<ScriptCall> calls,
      List<CompletableFuture<String>> into);

  /** HDEL of one field; how many were removed. */
  CompletableFuture<Long> hdel(String key, String field);

  /**
   * Subscribes {@code listener} to {@code channel}; the future completes with what unsubscribes it once the
   * subscription is in place.
   */
  CompletableFuture<Runnable> subscribe(String channel, Consumer<String> listener);

  /** PUBLISH; how many subscribers received it. */
  CompletableFuture<Long> publish(String channel, String message);
}
