package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.support.Async;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.StringCodec;

/** The store's calls on a {@link RedissonClient}: {@link RScript}, {@link RBatch} and {@link RTopic}. Threadsafe. */
public final class RedissonScripts implements ScriptClient {
  private static final Map<RedissonClient, WeakReference<RedissonScripts>> ADAPTERS = new WeakHashMap<>();

  private final RedissonClient redisson;
  private final RScript script;
  private final ConnectGuard guard = ConnectGuard.create();

  private RedissonScripts(RedissonClient redisson) {
    this.redisson = redisson;
    this.script = redisson.getScript(StringCodec.INSTANCE);
  }

  /** The adapter of this client: one per client (its connect guard for every bucket on it). */
  public static RedissonScripts of(RedissonClient redisson) {
    return ClientFutures.adapterOf(ADAPTERS, redisson, RedissonScripts::new);
  }

  @Override
  public ConnectGuard guard() {
    return guard;
  }

  @Override
  public CompletableFuture<String> evalSha(String sha, String key, List<Object> keys, Object[] args) {
    return mapped(script.<String>evalShaAsync(key, RScript.Mode.READ_WRITE, sha, RScript.ReturnType.VALUE, keys,
        args));
  }

  @Override
  public CompletableFuture<String> eval(String source, String key, List<Object> keys, Object[] args) {
    return mapped(script.<String>evalAsync(key, RScript.Mode.READ_WRITE, source, RScript.ReturnType.VALUE, keys,
        args));
  }

  @Override
  public CompletableFuture<Boolean> scriptExists(String key, String sha) {
    return mapped(script.scriptExistsAsync(key, new String[] {sha})).thenApply(e -> !e.isEmpty() && e.get(0));
  }

  @Override
  public CompletableFuture<String> scriptLoad(String key, String source) {
    return mapped(script.scriptLoadAsync(key, source));
  }

  @Override
  public CompletableFuture<Void> pipeline(String key, List<Object> keys, List<ScriptCall> calls,
      List<CompletableFuture<String>> into) {
    RBatch batch = redisson.createBatch(BatchOptions.defaults());
    RScriptAsync batchScript = batch.getScript(StringCodec.INSTANCE);
    for (int i = 0; i < calls.size(); i++) {
      ScriptCall c = calls.get(i);
      RFuture<String> call = c.source() != null
          ? batchScript.evalAsync(key, RScript.Mode.READ_WRITE, c.source(), RScript.ReturnType.VALUE, keys, c.args())
          : batchScript.evalShaAsync(key, RScript.Mode.READ_WRITE, c.sha(), RScript.ReturnType.VALUE, keys,
              c.args());
      CompletableFuture<String> one = into.get(i);
      call.whenComplete((text, failure) -> {
        if (failure == null) {
          one.complete(text);
        } else {
          one.completeExceptionally(failure(Async.cause(failure)));
        }
      });
    }
    CompletableFuture<Void> executed = new CompletableFuture<>();
    batch.executeAsync().whenComplete((replies, failure) -> {
      Throwable cause = failure == null ? null : failure(Async.cause(failure));
      if (cause == null || cause instanceof RedisFailure f && f.kind() == RedisFailure.Kind.ANSWERED) {
        executed.complete(null); // an error of one call fails the batch too: that call's own future has it
      } else {
        into.forEach(s -> s.completeExceptionally(cause));
        executed.completeExceptionally(cause);
      }
    });
    return executed;
  }

  @Override
  public CompletableFuture<Long> hdel(String key, String field) {
    return mapped(redisson.getMap(key, StringCodec.INSTANCE).fastRemoveAsync(field));
  }

  @Override
  public CompletableFuture<Runnable> subscribe(String channel, Consumer<String> listener) {
    RTopic topic = redisson.getTopic(channel, StringCodec.INSTANCE);
    return mapped(topic.addListenerAsync(String.class, (c, message) -> listener.accept(message)))
        .thenApply(id -> () -> topic.removeListenerAsync(id));
  }

  @Override
  public CompletableFuture<Long> publish(String channel, String message) {
    return mapped(redisson.getTopic(channel, StringCodec.INSTANCE).publishAsync(message));
  }

  private static <T> CompletableFuture<T> mapped(RFuture<T> sent) {
    return ClientFutures.mapped(sent, RedissonScripts::failure);
  }

  /** Redisson's exception as a {@link RedisFailure}; any other as it is. */
  static Throwable failure(Throwable t) {
    if (t instanceof RedisConnectionException) {
      for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
        if (c instanceof RedisTimeoutException) {
          return new RedisFailure(RedisFailure.Kind.UNREACHABLE, "Redis did not answer while connecting (it accepts "
              + "connections but is silent, or speaks no TLS)", t.getClass().getSimpleName(), t);
        }
        if (c instanceof RedisException && !(c instanceof RedisConnectionException)) {
          return new RedisFailure(RedisFailure.Kind.REFUSED, String.valueOf(c.getMessage()),
              t.getClass().getSimpleName(), t);
        }
      }
      return new RedisFailure(RedisFailure.Kind.UNREACHABLE, "Redis node unreachable ("
          + t.getClass().getSimpleName() + ")", t.getClass().getSimpleName(), t);
    }
    if (t instanceof RedisTimeoutException) {
      return new RedisFailure(RedisFailure.Kind.TIMEOUT, t.getMessage(), t.getClass().getSimpleName(), t);
    }
    if (t instanceof RedisException) {
      return new RedisFailure(RedisFailure.Kind.ANSWERED, t.getMessage(), t.getClass().getSimpleName(), t);
    }
    return t;
  }
}
