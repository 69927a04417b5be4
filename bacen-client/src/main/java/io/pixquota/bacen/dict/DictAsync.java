package io.pixquota.bacen.dict;

import io.pixquota.throttle.ThrottleException;
import io.pixquota.throttle.support.Async;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * {@link DictClient#getEntryAsync}: the lookup's request enqueued through the throttle's call factory, as API Pix's
 * async calls are (its slot waited for on the throttle's timer, no thread held; sent on OkHttp's dispatcher), and the
 * caller's future completed on the callback executor, never on OkHttp's dispatcher nor the throttle's timer.
 * Threadsafe.
 */
final class DictAsync {
  private final DictLookups lookups;
  private final DictHttp http;
  private final Executor callbacks;

  DictAsync(DictLookups lookups, DictHttp http, Executor callbacks) {
    this.lookups = lookups;
    this.http = http;
    this.callbacks = callbacks;
  }

  CompletableFuture<DictEntry> lookup(DictLookupBucket booking) {
    DictLookups.Prepared p = booking.prepared();
    CompletableFuture<DictEntry> result = new CompletableFuture<>();
    http.enqueue(http.entry(booking)).whenComplete((answer, failure) -> {
      try {
        if (failure == null) {
          result.complete(lookups.answer(p, booking.booked(), answer));
        } else {
          result.completeExceptionally(failed(booking, Async.cause(failure)));
        }
      } catch (RuntimeException refused) {
        result.completeExceptionally(refused);
      }
    });
    return delivered(result);
  }

  private DictException failed(DictLookupBucket booking, Throwable cause) {
    DictLookups.Prepared p = booking.prepared();
    if (cause instanceof ThrottleException refusal) {
      return lookups.refused(p, refusal);
    }
    if (!booking.sent()) {
      return new DictThrottledException("the lookup was not sent: " + cause.getMessage(), cause);
    }
    return lookups.failed(p, cause instanceof IOException io ? io : new IOException(cause));
  }

  /** {@code result} as the caller sees it: completed on the callback executor, its failure unwrapped. */
  <T> CompletableFuture<T> delivered(CompletableFuture<T> result) {
    CompletableFuture<T> delivered = new CompletableFuture<>();
    result.whenCompleteAsync((value, failure) -> {
      if (failure == null) {
        delivered.complete(value);
      } else {
        delivered.completeExceptionally(Async.cause(failure));
      }
    }, callbacks);
    return delivered;
  }
}
