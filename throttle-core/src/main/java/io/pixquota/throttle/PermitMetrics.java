package io.pixquota.throttle;

import io.pixquota.throttle.store.PermitPool;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throttle's meters of its permit pools (docs/operations.md, "Calls in flight"): permits this process holds and
 * those of them abandoned (sent, given up, still at the provider), the capacity in force, the wait for a permit by
 * class, leases that ended unreturned, releases that came after their lease or found their permit gone, calls refused
 * for want of a permit, releases that failed.
 */
final class PermitMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(PermitMetrics.class);
  private final MeterRegistry registry;
  private final AtomicBoolean warnedLate = new AtomicBoolean();
  private final AtomicBoolean warnedLost = new AtomicBoolean();

  PermitMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The pool's gauges and counters, made before any call; {@code counts}: what this process holds of it. */
  void register(PermitPool pool, PermitHolds.Counts counts) {
    Tags tags = Tags.of("pool", pool.name());
    Gauge.builder("bacen.throttle.pool.in.use", counts, c -> c.held.get()).description("Permits this process holds "
        + "now, abandoned ones included; the fleet's is the sum over its processes").tags(tags).register(registry);
    Gauge.builder("bacen.throttle.pool.abandoned", counts, c -> c.abandoned.get()).description("Permits of calls "
        + "this process sent and gave up on (a timeout, a cancel, a broken connection): held until the provider can "
        + "no longer be working on them").tags(tags).register(registry);
    Gauge.builder("bacen.throttle.pool.capacity", pool, p -> p.readings().capacityInForce()).description("Calls the "
        + "pool lets be in flight at once: the smallest any live replica asks for, as the pool last said")
        .tags(tags).register(registry);
    FunctionCounter.builder("bacen.throttle.pool.leases.expired", pool, p -> p.readings().expiredLeases())
        .description("Permits the pool took back when their lease ended, unreturned: a holder that died or was cut "
            + "off, or an abandoned call's").tags(tags).register(registry);
    late(pool);
    lost(pool);
    for (Priority priority : Priority.values()) {
      wait(pool, priority);
      refused(pool, priority);
    }
  }

  void taken(PermitPool pool, Priority priority, Duration waited) {
    wait(pool, priority).record(waited);
  }

  void refusedCall(PermitPool pool, Priority priority) {
    refused(pool, priority).increment();
  }

  /**
   * A release's outcome: held (given back), failed, or not held: after its lease (the lease is shorter than calls
   * take), or before it (the pool's state was lost, or another service took the permit back). A WARN of each kind
   * once.
   */
  void released(PermitPool pool, PermitPool.Permit permit, Boolean held, Throwable failure, long nowNanos) {
    if (failure != null) {
      Counter.builder("bacen.throttle.pool.releases.failed").description("Releases that did not reach the pool's "
          + "store: those permits come back when their lease ends").tag("pool", pool.name()).register(registry)
          .increment();
      LOG.debug("Pool '{}': a release did not reach the store ({}); the permit comes back with its lease",
          pool.name(), failure.toString());
    } else if (Boolean.FALSE.equals(held) && nowNanos - permit.leaseEndsAtNanos() >= 0) {
      late(pool).increment();
      if (warnedLate.compareAndSet(false, true)) {
        LOG.warn("Pool '{}': a call gave its permit back after its lease of {} ms had ended; the lease is shorter "
            + "than calls take (see bacen.throttle.pool.releases.late)", pool.name(), pool.lease().toMillis());
      }
    } else if (Boolean.FALSE.equals(held)) {
      lost(pool).increment();
      if (warnedLost.compareAndSet(false, true)) {
        LOG.warn("Pool '{}': a call gave its permit back {} ms before its lease ended and the pool no longer had it: "
            + "the pool's state in Redis was lost (a restart without persistence, a failover, a deleted key) or "
            + "another service took it back (see bacen.throttle.pool.permits.lost)", pool.name(),
            (permit.leaseEndsAtNanos() - nowNanos) / 1_000_000);
      }
    }
  }

  private Counter late(PermitPool pool) {
    return Counter.builder("bacen.throttle.pool.releases.late").description("Releases that came after their "
        + "permit's lease had ended: they freed nothing").tag("pool", pool.name()).register(registry);
  }

  private Counter lost(PermitPool pool) {
    return Counter.builder("bacen.throttle.pool.permits.lost").description("Releases that found their permit gone "
        + "before its lease ended: the pool's state was lost, or another service took it back").tag("pool",
        pool.name()).register(registry);
  }

  private Timer wait(PermitPool pool, Priority priority) {
    return Timer.builder("bacen.throttle.pool.wait").description("Time a call waited for a permit of the pool")
        .tags("pool", pool.name(), "priority", priority.name().toLowerCase(Locale.ROOT)).publishPercentiles(0.5,
            0.99).publishPercentileHistogram().maximumExpectedValue(Duration.ofSeconds(60)).register(registry);
  }

  private Counter refused(PermitPool pool, Priority priority) {
    return Counter.builder("bacen.throttle.pool.refused").description("Calls not sent: no permit within their max "
        + "wait").tags("pool", pool.name(), "priority", priority.name().toLowerCase(Locale.ROOT)).register(registry);
  }
}
