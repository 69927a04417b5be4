package io.pixquota.throttle.redis.internal;

import io.pixquota.throttle.support.Async;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/** What both client adapters share: their futures with the failures mapped, and one adapter per client. */
final class ClientFutures {
  private ClientFutures() {}

  /**
   * {@code source}'s outcome, its failure mapped by {@code map}; completing the result first (a timeout, a caller
   * giving up) cancels {@code source}, which a client that has not sent it yet then never sends.
   */
  static <T> CompletableFuture<T> mapped(CompletionStage<T> source, UnaryOperator<Throwable> map) {
    CompletableFuture<T> from = source.toCompletableFuture();
    CompletableFuture<T> out = new CompletableFuture<>();
    from.whenComplete((value, failure) -> {
      if (failure == null) {
        out.complete(value);
      } else {
        out.completeExceptionally(map.apply(Async.cause(failure)));
      }
    });
    out.whenComplete((value, failure) -> {
      if (!from.isDone()) {
        from.cancel(false);
      }
    });
    return out;
  }

  /** The adapter of {@code client}, made once while any holder keeps it. */
  static <C, S> S adapterOf(Map<C, WeakReference<S>> adapters, C client, Function<C, S> make) {
    synchronized (adapters) {
      WeakReference<S> ref = adapters.get(client);
      S adapter = ref == null ? null : ref.get();
      if (adapter == null) {
        adapter = make.apply(client);
        adapters.put(client, new WeakReference<>(adapter));
      }
      return adapter;
    }
  }
}
