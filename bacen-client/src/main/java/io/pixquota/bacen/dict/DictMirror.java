package io.pixquota.bacen.dict;

import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.Standing;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.support.Async;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror's round trips: a booking carries what the ledger owes (so a lookup costs one), a flush sends what is
 * still owed after the flush delay, or at once for a calibration that matters; a redeem flushes first, so that a
 * credit remembered by this process is found. A failed round trip keeps only its calibrations ({@link
 * DictLedger#failed}); they are tried again, logged once per outage.
 * Threadsafe.
 */
final class DictMirror {
  private static final Logger log = LoggerFactory.getLogger(DictMirror.class);
  private static final Duration RETRY = Duration.ofSeconds(1);

  private final BucketGroup group;
  private final DictLedger ledger;
  private final DictMetrics metrics;
  private final Scheduler scheduler;
  private final Duration flushDelay;
  private final AtomicBoolean flushScheduled = new AtomicBoolean();
  private final AtomicBoolean failing = new AtomicBoolean();

  /** Where flushes run: the client's scheduler thread (a simulation's event queue in the property test). */
  interface Scheduler {
    /** @throws RejectedExecutionException once closed */
    void schedule(Runnable task, long delayNanos);

    static Scheduler of(ScheduledExecutorService executor) {
      return (task, delayNanos) -> executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  DictMirror(BucketGroup group, DictLedger ledger, DictMetrics metrics, Scheduler scheduler, Duration flushDelay) {
    this.group = group;
    this.ledger = ledger;
    this.metrics = metrics;
    this.scheduler = scheduler;
    this.flushDelay = flushDelay;
  }

  BucketGroup group() {
    return group;
  }

  Acquired book(List<Take> takes, Duration maxWait, Standing standing)
      throws StoreUnavailableException, InterruptedException {
    DictLedger.Batch owed = ledger.take();
    try {
      metrics.roundTrip("booking");
      Acquired a = group.acquire(takes, maxWait, owed.gives(), owed.credits(), standing);
      sent(owed);
      ledger.seen(takes, a.remaining(), a.answeredAtNanos());
      return a;
    } catch (StoreUnavailableException | InterruptedException | RuntimeException e) {
      ledger.failed(owed);
      throw e;
    }
  }

  /** {@link #book} without blocking; fails with the store's {@link StoreUnavailableException}. */
  CompletableFuture<Acquired> bookAsync(List<Take> takes, Duration maxWait, Standing standing) {
    DictLedger.Batch owed = ledger.take();
    metrics.roundTrip("booking");
    CompletableFuture<Acquired> out = new CompletableFuture<>();
    group.acquireAsync(takes, maxWait, owed.gives(), owed.credits(), standing).whenComplete((a, failure) -> {
      if (failure != null) {
        ledger.failed(owed);
        out.completeExceptionally(Async.cause(failure));
      } else {
        sent(owed);
        ledger.seen(takes, a.remaining(), a.answeredAtNanos());
        out.complete(a);
      }
    });
    return out;
  }

  /** Gives of their own (the provider's {@code GET /policies}), with what is owed. */
  void give(List<Give> gives) throws StoreUnavailableException, InterruptedException {
    ledger.owe(gives, null);
    flushAll();
  }

  /** Sends what is owed after the flush delay, unless a booking carries it first. */
  void flushSoon() {
    if (flushScheduled.compareAndSet(false, true)) {
      schedule(flushDelay);
    }
  }

  /** Sends what is owed now (a calibration that lowers the mirror by more than a token). */
  void flushNow() {
    schedule(Duration.ZERO);
  }

  /** Sends everything owed on this thread. */
  void flushAll() throws StoreUnavailableException, InterruptedException {
    for (DictLedger.Batch b = ledger.take(); !b.isEmpty(); b = ledger.take()) {
      try {
        metrics.roundTrip("flush");
        group.give(b.gives(), b.credits());
        sent(b);
      } catch (StoreUnavailableException | InterruptedException | RuntimeException e) {
        ledger.failed(b);
        throw e;
      }
    }
  }

  /**
   * Gives a settled payment's credit back, once. A credit this process still holds (its lookup's answer has not
   * ridden on a round trip yet) is given here, riding on the next one: no other process can have it. Any other is
   * redeemed in the store, where the first process to ask gets it.
   */
  boolean redeem(String endToEndId, double maxRefund) throws StoreUnavailableException, InterruptedException {
    BucketGroup.Credit mine = ledger.takeCredit(endToEndId);
    if (mine != null) {
      ledger.owe(mine.gives(), null);
      flushSoon();
      metrics.credit("redeemed");
      return true;
    }
    metrics.roundTrip("redeem");
    boolean redeemed = group.redeem(endToEndId, maxRefund);
    metrics.credit(redeemed ? "redeemed" : "unknown");
    return redeemed;
  }

  private void flushQuietly() {
    flushScheduled.set(false);
    try {
      flushAll();
      if (failing.compareAndSet(true, false)) {
        log.info("DICT mirror: round trips reach the store again");
      }
    } catch (StoreUnavailableException | RuntimeException e) {
      if (failing.compareAndSet(false, true)) {
        log.warn("DICT mirror: a round trip with owed refunds and credits failed ({}); they are dropped, since Redis "
            + "may have applied them (the mirror stays lower until its buckets refill, never higher); calibrations are "
            + "tried again every {} s", e.getMessage(), RETRY.toSeconds());
      }
      if (flushScheduled.compareAndSet(false, true)) {
        schedule(RETRY);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void schedule(Duration delay) {
    try {
      scheduler.schedule(this::flushQuietly, delay.toNanos());
    } catch (RejectedExecutionException closed) {
      flushScheduled.set(false); // closing: close() flushes what is owed
    }
  }

  private void sent(DictLedger.Batch batch) {
    for (int i = 0; i < batch.credits().size(); i++) {
      metrics.credit("remembered");
    }
  }
}
