package io.pixquota.throttle;

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
 * A throttle's meters of its permit pools (docs/operations.md, "Calls in flight"): permits in use fleet-wide as this
 * process last saw them, the wait for a permit by class, leases that ended unreturned (their holders died), releases
 * that came after their lease, calls refused for want of a permit, releases that failed.
 */
final class PermitMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(PermitMetrics.class);
  private final MeterRegistry registry;
  private final AtomicBoolean warnedLate = new AtomicBoolean();

  PermitMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** The pool's gauges and counters, made before any call. */
  void register(PermitPool pool) {
    Tags tags = Tags.of("pool", pool.name());
    Gauge.builder("bacen.throttle.pool.in.use", pool, p -> p.readings().inUse()).description("Permits held "
        + "fleet-wide, as this process's last answer from the pool said").tags(tags).register(registry);
    Gauge.builder("bacen.throttle.pool.capacity", pool, PermitPool::capacity).description("Calls the pool lets be in "
        + "flight at once").tags(tags).register(registry);
    FunctionCounter.builder("bacen.throttle.pool.leases.expired", pool, p -> p.readings().expiredLeases())
        .description("Permits whose lease ended before they were given back: their holders died or were cut off")
        .tags(tags).register(registry);
    FunctionCounter.builder("bacen.throttle.pool.releases.late", pool, p -> p.readings().lateReleases())
        .description("Releases that came after their permit's lease had ended: they freed nothing").tags(tags)
        .register(registry);
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

  /** A release's outcome: held (given back), not held (after its lease: WARN once), or failed. */
  void released(PermitPool pool, Boolean held, Throwable failure) {
    if (failure != null) {
      Counter.builder("bacen.throttle.pool.releases.failed").description("Releases that did not reach the pool's "
          + "store: those permits come back when their lease ends").tag("pool", pool.name()).register(registry)
          .increment();
      LOG.debug("Pool '{}': a release did not reach the store ({}); the permit comes back with its lease",
          pool.name(), failure.toString());
    } else if (Boolean.FALSE.equals(held) && warnedLate.compareAndSet(false, true)) {
      LOG.warn("Pool '{}': a call gave its permit back after its lease of {} ms had ended; the lease is shorter "
          + "than calls take (see bacen.throttle.pool.releases.late)", pool.name(), pool.lease().toMillis());
    }
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
