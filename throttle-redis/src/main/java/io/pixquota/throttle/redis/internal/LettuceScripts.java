package io.pixquota.throttle.redis.internal;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The store's calls on a Lettuce {@link RedisClient} (one node, or a Sentinel address) or {@link RedisClusterClient}:
 * EVALSHA and EVAL routed by their first key (a Cluster sends them to the node of its slot), SCRIPT EXISTS and LOAD
 * on that node, pipelines written in one flush on a connection of their own, and one Pub/Sub connection for every
 * channel. The connections are opened at the first command, on the {@link ConnectGuard}'s thread, never the caller's.
 * The messages of a channel reach their listeners on a thread of this adapter's, not on Lettuce's I/O thread.
 * Threadsafe.
 */
public final class LettuceScripts implements ScriptClient {
  private static final Map<AbstractRedisClient, WeakReference<LettuceScripts>> ADAPTERS = new WeakHashMap<>();

  private final AbstractRedisClient client;
  private final ConnectGuard guard = ConnectGuard.create();
  private final Map<String, List<Consumer<String>>> listeners = new ConcurrentHashMap<>();
  private final ThreadPoolExecutor messages;
  private final Object connecting = new Object();
  private volatile StatefulConnection<String, String> commands;
  private volatile StatefulConnection<String, String> pipelined; // auto-flush off: written by pipeline() only
  private volatile StatefulRedisPubSubConnection<String, String> pubSub;

  private LettuceScripts(AbstractRedisClient client) {
    if (!(client instanceof RedisClient || client instanceof RedisClusterClient)) {
      throw new IllegalArgumentException("a RedisClient or a RedisClusterClient, not " + client.getClass());
    }
    this.client = client;
    this.messages = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "pixquota-lettuce-messages");
      t.setDaemon(true);
      return t;
    });
    messages.allowCoreThreadTimeOut(true);
  }

  /** The adapter of this client: one per client (its connections and connect guard for every bucket on it). */
  public static LettuceScripts of(AbstractRedisClient client) {
    return ClientFutures.adapterOf(ADAPTERS, client, LettuceScripts::new);
  }

  @Override
  public ConnectGuard guard() {
    return guard;
  }

  @Override
  public CompletableFuture<String> evalSha(String sha, String key, List<Object> keys, Object[] args) {
    return send(c -> async(c).evalsha(sha, ScriptOutputType.VALUE, keys(keys), values(args)));
  }

  @Override
  public CompletableFuture<String> eval(String source, String key, List<Object> keys, Object[] args) {
    return send(c -> async(c).eval(source, ScriptOutputType.VALUE, keys(keys), values(args)));
  }

  @Override
  public CompletableFuture<Boolean> scriptExists(String key, String sha) {
    return send(c -> node(c, key).scriptExists(sha)).thenApply(e -> !e.isEmpty() && e.get(0));
  }

  @Override
  public CompletableFuture<String> scriptLoad(String key, String source) {
    return send(c -> node(c, key).scriptLoad(source));
  }

  @Override
  public CompletableFuture<Void> pipeline(String key, List<Object> keys, List<ScriptCall> calls,
      List<CompletableFuture<String>> into) {
    StatefulConnection<String, String> p;
    try {
      connect();
      p = pipelined;
    } catch (RuntimeException e) {
      Throwable failure = failure(e);
      into.forEach(s -> s.completeExceptionally(failure));
      return CompletableFuture.failedFuture(failure);
    }
    String[] k = keys(keys);
    List<CompletableFuture<String>> sent = new ArrayList<>(calls.size());
    synchronized (p) { // one batch at a time on this connection: written in one flush, in order
      for (ScriptCall call : calls) {
        sent.add(ClientFutures.mapped(call.source() != null
            ? async(p).<String>eval(call.source(), ScriptOutputType.VALUE, k, values(call.args()))
            : async(p).<String>evalsha(call.sha(), ScriptOutputType.VALUE, k, values(call.args())),
            LettuceScripts::failure));
      }
      p.flushCommands();
    }
    for (int i = 0; i < sent.size(); i++) {
      CompletableFuture<String> one = into.get(i);
      CompletableFuture<String> call = sent.get(i);
      call.whenComplete((text, failure) -> {
        if (failure == null) {
          one.complete(text);
        } else {
          one.completeExceptionally(failure);
        }
      });
      // given up first (its timeout): a call a disconnected client still holds is never sent
      one.whenComplete((text, failure) -> call.cancel(false));
    }
    return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).handle((v, f) -> null);
  }

  @Override
  public CompletableFuture<Long> hdel(String key, String field) {
    return send(c -> async(c).hdel(key, field));
  }

  @Override
  public CompletableFuture<Runnable> subscribe(String channel, Consumer<String> listener) {
    StatefulRedisPubSubConnection<String, String> ps;
    try {
      connect();
      ps = pubSub;
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(failure(e));
    }
    listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(listener);
    return ClientFutures.mapped(ps.async().subscribe(channel), LettuceScripts::failure).handle((v, failure) -> {
      if (failure != null) {
        listeners.getOrDefault(channel, List.of()).remove(listener);
        throw new java.util.concurrent.CompletionException(failure);
      }
      return () -> {
        List<Consumer<String>> left = listeners.get(channel);
        if (left != null && left.remove(listener) && left.isEmpty()) {
          ps.async().unsubscribe(channel);
        }
      };
    });
  }

  @Override
  public CompletableFuture<Long> publish(String channel, String message) {
    return send(c -> async(c).publish(channel, message));
  }

  /** A command on the shared connection, opened first if it is not yet (on the guard's thread). */
  private <T> CompletableFuture<T> send(Function<StatefulConnection<String, String>, io.lettuce.core.RedisFuture<T>>
      command) {
    try {
      connect();
      return ClientFutures.mapped(command.apply(commands), LettuceScripts::failure);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(failure(e));
    }
  }

  /** Opens the connections once; a failed connect is tried again by the next command. */
  private void connect() {
    if (pubSub != null) {
      return;
    }
    synchronized (connecting) {
      if (pubSub != null) {
        return;
      }
      if (commands == null) {
        commands = open();
      }
      if (pipelined == null) {
        StatefulConnection<String, String> p = open();
        p.setAutoFlushCommands(false);
        pipelined = p;
      }
      StatefulRedisPubSubConnection<String, String> ps = client instanceof RedisClusterClient cluster
          ? cluster.connectPubSub(StringCodec.UTF8) : ((RedisClient) client).connectPubSub(StringCodec.UTF8);
      ps.addListener(new RedisPubSubAdapter<>() {
        @Override
        public void message(String channel, String message) {
          List<Consumer<String>> those = listeners.get(channel);
          if (those != null && !those.isEmpty()) {
            messages.execute(() -> those.forEach(l -> l.accept(message)));
          }
        }
      });
      pubSub = ps;
    }
  }

  private StatefulConnection<String, String> open() {
    return client instanceof RedisClusterClient cluster ? cluster.connect(StringCodec.UTF8)
        : ((RedisClient) client).connect(StringCodec.UTF8);
  }

  @SuppressWarnings("unchecked")
  private static RedisClusterAsyncCommands<String, String> async(StatefulConnection<String, String> c) {
    return c instanceof StatefulRedisClusterConnection<?, ?> cluster
        ? ((StatefulRedisClusterConnection<String, String>) cluster).async()
        : ((StatefulRedisConnection<String, String>) c).async();
  }

  /** The commands of the node that serves {@code key}: itself on one node, its slot's master in a Cluster. */
  @SuppressWarnings("unchecked")
  private static RedisClusterAsyncCommands<String, String> node(StatefulConnection<String, String> c, String key) {
    if (c instanceof StatefulRedisClusterConnection<?, ?> cluster) {
      StatefulRedisClusterConnection<String, String> cc = (StatefulRedisClusterConnection<String, String>) cluster;
      RedisClusterNode master = cc.getPartitions().getPartitionBySlot(SlotHash.getSlot(key));
      if (master == null) {
        throw new RedisException("no node of the Cluster serves the slot of " + key + " (CLUSTERDOWN?)");
      }
      return cc.getConnection(master.getNodeId()).async();
    }
    return async(c);
  }

  private static String[] keys(List<Object> keys) {
    String[] out = new String[keys.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = String.valueOf(keys.get(i));
    }
    return out;
  }

  private static String[] values(Object[] args) {
    String[] out = new String[args.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = String.valueOf(args[i]);
    }
    return out;
  }

  /** Lettuce's exception as a {@link RedisFailure}; any other as it is. */
  static Throwable failure(Throwable t) {
    String origin = t.getClass().getSimpleName();
    if (t instanceof RedisConnectionException) {
      for (Throwable c = t.getCause(); c != null; c = c.getCause()) {
        if (c instanceof RedisCommandExecutionException) {
          return new RedisFailure(RedisFailure.Kind.REFUSED, String.valueOf(c.getMessage()), origin, t);
        }
        if (c instanceof RedisCommandTimeoutException || c instanceof TimeoutException
            || c.getClass().getSimpleName().contains("Timeout")) {
          return new RedisFailure(RedisFailure.Kind.UNREACHABLE, "Redis did not answer while connecting (it accepts "
              + "connections but is silent, or speaks no TLS)", origin, t);
        }
      }
      return new RedisFailure(RedisFailure.Kind.UNREACHABLE, "Redis node unreachable (" + origin + ")", origin, t);
    }
    if (t instanceof RedisCommandTimeoutException) {
      return new RedisFailure(RedisFailure.Kind.TIMEOUT, t.getMessage(), origin, t);
    }
    if (t instanceof RedisCommandExecutionException) {
      return new RedisFailure(RedisFailure.Kind.ANSWERED, t.getMessage(), origin, t);
    }
    if (t instanceof RedisException || t instanceof IOException) { // closed, not connected, reset by peer
      return new RedisFailure(RedisFailure.Kind.UNREACHABLE, "Redis node unreachable (" + origin + ": "
          + RedisErrors.shorten(String.valueOf(t.getMessage())) + ")", origin, t);
    }
    return t;
  }
}
