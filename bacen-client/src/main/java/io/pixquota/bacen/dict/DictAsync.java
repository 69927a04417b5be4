package io.pixquota.bacen.dict;

import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.support.Async;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@link DictClient#getEntryAsync}: the booking without blocking, the wait for the slot on the client's scheduler
 * (no thread held), the call enqueued on OkHttp, and the caller's future completed on the callback executor, never on
 * OkHttp's dispatcher nor the scheduler. Threadsafe.
 */
final class DictAsync {
  private final DictLookups lookups;
  private final DictMirror mirror;
  private final DictLedger ledger;
  private final DictHttp http;
  private final ScheduledExecutorService scheduler;
  private final Executor callbacks;

  DictAsync(DictLookups lookups, DictMirror mirror, DictLedger ledger, DictHttp http,
      ScheduledExecutorService scheduler, Executor callbacks) {
    this.lookups = lookups;
    this.mirror = mirror;
    this.ledger = ledger;
    this.http = http;
    this.scheduler = scheduler;
    this.callbacks = callbacks;
  }

  CompletableFuture<DictEntry> lookup(DictLookups.Prepared p) {
    CompletableFuture<DictEntry> result = new CompletableFuture<>();
    book(p, result);
    return delivered(result);
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

  private void book(DictLookups.Prepared p, CompletableFuture<DictEntry> result) {
    DictLookups.Decision known;
    try {
      known = lookups.local(p);
    } catch (DictException e) {
      result.completeExceptionally(e);
      return;
    }
    if (known != null) {
      later(known.retryNanos(), result, () -> book(p, result));
      return;
    }
    mirror.bookAsync(p.plan().takes(), lookups.maxWait(p), p.plan().standing()).whenComplete((booked, failure) -> {
      if (failure != null) {
        result.completeExceptionally(lookups.unavailable(failure instanceof Exception e ? e
            : new IllegalStateException(failure)));
        return;
      }
      DictLookups.Decision d;
      try {
        d = lookups.decide(p, booked);
      } catch (DictException e) {
        result.completeExceptionally(e);
        return;
      }
      later(d.go() ? d.waitNanos() : d.retryNanos(), result, d.go() ? () -> send(p, booked, result)
          : () -> book(p, result));
    });
  }

  private void send(DictLookups.Prepared p, Acquired booked, CompletableFuture<DictEntry> result) {
    ledger.begin(p.plan().takes());
    http.enqueue(http.entry(p.key(), p.payer().hex(), p.payerType(), p.endToEndId())).whenComplete((answer, e) -> {
      try {
        if (e != null) {
          result.completeExceptionally(lookups.failed(p, e instanceof IOException io ? io : new IOException(e)));
        } else {
          result.complete(lookups.answer(p, booked, answer));
        }
      } catch (DictException refused) {
        result.completeExceptionally(refused);
      } catch (RuntimeException bug) {
        result.completeExceptionally(bug);
      }
    });
  }

  private void later(long nanos, CompletableFuture<DictEntry> result, Runnable step) {
    try {
      scheduler.schedule(step, nanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      result.completeExceptionally(new DictThrottledException("the DictClient closed while the lookup waited for its "
          + "slot; not sent", closed));
    }
  }
}
