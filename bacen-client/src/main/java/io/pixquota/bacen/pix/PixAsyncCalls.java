package io.pixquota.bacen.pix;

import io.pixquota.throttle.Priority;
import io.pixquota.throttle.support.Async;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import okhttp3.Call;

/**
 * The {@code ...Async} calls of a {@link PixClient}: retries of async attempts, a cancel that reaches the attempt in
 * flight (or keeps one still waiting for its token from being sent), and the caller's future completed on the
 * callback executor, never on OkHttp's dispatcher. Threadsafe.
 */
final class PixAsyncCalls {
  private final PixRetry retry;
  private final PixAttempts attempts;
  private final Executor callbacks;

  PixAsyncCalls(PixRetry retry, PixAttempts attempts, Executor callbacks) {
    this.retry = retry;
    this.attempts = attempts;
    this.callbacks = callbacks;
  }

  <T> CompletableFuture<T> call(String operation, String path, Priority priority, PixResponses.Reader<T> reader) {
    AtomicReference<Call> current = new AtomicReference<>();
    AtomicBoolean cancelled = new AtomicBoolean();
    CompletableFuture<T> result = retry.callAsync(operation,
        () -> attempts.attemptAsync(operation, path, priority, reader, false, current, cancelled::get));
    result.whenComplete((value, failure) -> {
      if (result.isCancelled()) {
        cancelled.set(true); // first, so that an attempt that sets its call after this sees it (and cancels it)
        Call call = current.get();
        if (call != null) {
          call.cancel();
        }
      }
    });
    // The caller's future completes on the callback executor, never on OkHttp's dispatcher: a slow thenAccept there
    // would hold a dispatcher slot and make the calls behind it miss their slots (5 of 45, measured).
    CompletableFuture<T> delivered = new CompletableFuture<>();
    result.whenCompleteAsync((value, failure) -> {
      if (failure == null) {
        delivered.complete(value);
      } else {
        delivered.completeExceptionally(Async.cause(failure));
      }
    }, callbacks);
    delivered.whenComplete((value, failure) -> {
      if (delivered.isCancelled()) {
        result.cancel(true);
      }
    });
    return delivered;
  }
}
