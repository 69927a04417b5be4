package io.pixquota.throttle;

import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The permits this throttle's calls hold, pool by pool, and how each is given back. A call that got its answer, or
 * that failed before any byte of it was written, gives its permit back at once. A call that was sent and then timed
 * out, was cancelled or lost its connection is still at the provider, which counts it until it answers or drops it:
 * its permit is <em>abandoned</em>, held until the provider can no longer be working on it (its send plus the
 * provider's timeout, or the permit's lease if that ends first, when the pool takes it back by itself), counted
 * meanwhile, and a WARN says so at most once a minute. Threadsafe.
 */
final class PermitHolds {
  private static final Logger LOG = LoggerFactory.getLogger(PermitHolds.class);

  /** What this process holds of one pool. */
  static final class Counts {
    final AtomicInteger held = new AtomicInteger();
    final AtomicInteger abandoned = new AtomicInteger();
  }

  private final Map<PermitPool, Counts> byPool = new IdentityHashMap<>();
  private final TimeSource time;
  private final PermitMetrics metrics;
  private final Duration providerTimeout;
  private final AtomicLong lastAbandonWarnNanos;

  /** @param providerTimeout how long the provider may keep working on a call after its send; null without pools */
  PermitHolds(TimeSource time, PermitMetrics metrics, Duration providerTimeout) {
    this.time = time;
    this.metrics = metrics;
    this.providerTimeout = providerTimeout;
    this.lastAbandonWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  }

  /** Starts counting {@code pool}'s permits (before any call). */
  synchronized Counts register(PermitPool pool) {
    return byPool.computeIfAbsent(pool, p -> new Counts());
  }

  synchronized Counts of(PermitPool pool) {
    return byPool.computeIfAbsent(pool, p -> new Counts());
  }

  /** A permit of {@code pool} was taken. */
  void taken(PermitPool pool) {
    of(pool).held.incrementAndGet();
  }

  /**
   * The permit goes back now: the answer came, or the call never reached the provider. Without blocking: a release
   * lost costs the permit's lease.
   */
  void release(PermitPool pool, PermitPool.Permit permit) {
    of(pool).held.decrementAndGet();
    try {
      pool.release(permit).whenComplete((held, failure) -> metrics.released(pool, permit, held, failure,
          time.nanoTime()));
    } catch (RuntimeException e) {
      metrics.released(pool, permit, null, e, time.nanoTime());
    }
  }

  /**
   * The call was sent and gave up without an answer: the provider may still be working on it. Its permit is held
   * until {@code sentAtNanos} plus the provider's timeout, then given back; or, when the lease ends first, left to the
   * pool, which takes it back when its lease ends.
   */
  void abandon(PermitPool pool, PermitPool.Permit permit, long sentAtNanos) {
    Counts counts = of(pool);
    int now = counts.abandoned.incrementAndGet();
    long deadline = sentAtNanos + providerTimeout.toNanos();
    boolean release = deadline - permit.leaseEndsAtNanos() < 0;
    long until = release ? deadline : permit.leaseEndsAtNanos();
    warn(pool, now, until);
    time.schedule(() -> {
      counts.abandoned.decrementAndGet();
      if (release) {
        release(pool, permit);
      } else {
        counts.held.decrementAndGet(); // its lease has ended: the pool took it back
      }
    }, until);
  }

  private void warn(PermitPool pool, int abandoned, long untilNanos) {
    long now = time.nanoTime();
    long last = lastAbandonWarnNanos.get();
    if (now - last > TimeUnit.MINUTES.toNanos(1) && lastAbandonWarnNanos.compareAndSet(last, now)) {
      LOG.warn("Pool '{}': a call was sent and gave up without an answer (a timeout, a cancel, a broken connection); "
          + "the provider may still be working on it, so its permit is held {} ms more, until the provider's timeout "
          + "({} ms after the send) or its lease ends; {} held so now (see bacen.throttle.pool.abandoned)",
          pool.name(), Math.max(0, (untilNanos - now) / 1_000_000), providerTimeout.toMillis(), abandoned);
    }
  }
}
