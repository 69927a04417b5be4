package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.Acquisition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.throttle.support.TimeSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The provider's own word on its remaining quota ({@link QuotaHeaders}), read on every answer: when it says fewer
 * remain than the bucket expected at the call's slot, the shared bucket is lowered by the difference (charged, one
 * asynchronous round trip); never raised (the provider counts other traffic too). At most once per
 * {@link #INTERVAL_NANOS} per bucket in this process, so a fleet does not write Redis on every answer. A malformed
 * header is counted ({@code bacen.throttle.quota.headers{outcome="ignored"}}) and logged once a minute, never trusted.
 */
final class QuotaCalibration {
  static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final Logger LOG = LoggerFactory.getLogger(Throttle.class);

  private final QuotaHeaders family;
  private final TimeSource time;
  private final MeterRegistry registry;
  private final ThrottleMetrics metrics;
  private final Map<String, AtomicLong> lastLowered = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>(); // "<outcome>\n<bucket>", "tokens\n<bucket>"
  private final AtomicLong lastWarnNanos;

  /** @param family null: the answers' quota headers are not read */
  QuotaCalibration(QuotaHeaders family, TimeSource time, ThrottleMetrics metrics) {
    this.family = family;
    this.time = time;
    this.metrics = metrics;
    this.registry = metrics.registry();
    this.lastWarnNanos = new AtomicLong(time.nanoTime() - TimeUnit.MINUTES.toNanos(2));
  }

  /** The provider answered a call that left on {@code granted}. */
  void answered(TokenBucket bucket, Acquisition granted, UnaryOperator<String> headers) {
    if (family == null || granted == null || !granted.granted()) {
      return;
    }
    QuotaHeaderReader.Reading said = QuotaHeaderReader.read(family, headers);
    if (said.ignoredBecause() != null) {
      count(bucket, "ignored");
      long now = time.nanoTime();
      long last = lastWarnNanos.get();
      if (now - last > TimeUnit.MINUTES.toNanos(1) && lastWarnNanos.compareAndSet(last, now)) {
        LOG.warn("Bucket '{}': a {} quota header that does not parse was ignored (see "
            + "bacen.throttle.quota.headers{{outcome=\"ignored\"}})", bucket.name(), family);
      }
      return;
    }
    if (said.remaining() < 0) {
      return; // this answer says nothing
    }
    double expected = expected(bucket, granted);
    double below = expected - said.remaining();
    if (below <= 1) {
      count(bucket, "agreed"); // within a token: the provider's rounding and its own refill
      return;
    }
    long now = time.nanoTime();
    AtomicLong last = lastLowered.computeIfAbsent(bucket.name(), b -> new AtomicLong(now - 2 * INTERVAL_NANOS));
    long before = last.get();
    if (now - before < INTERVAL_NANOS || !last.compareAndSet(before, now)) {
      count(bucket, "skipped"); // lowered a moment ago: the next answer will tell again if it still differs
      return;
    }
    double capacity = bucket.limits().stream().mapToDouble(Limit::capacity).min().orElse(below);
    double by = Math.min(below - 1, capacity);
    count(bucket, "lowered");
    counters.computeIfAbsent("tokens\n" + bucket.name(), k -> Counter.builder("bacen.throttle.quota.lowered")
        .description("Tokens taken from the shared bucket because the provider's quota headers said fewer remained")
        .tag("bucket", bucket.name()).register(registry)).increment(by);
    try {
      bucket.chargeAsync(by).whenComplete((left, failure) -> {
        if (failure != null) {
          metrics.redisError(bucket.name());
        }
      });
    } catch (RuntimeException e) {
      metrics.redisError(bucket.name());
    }
  }

  /**
   * What the bucket expected the provider to have left when the call arrived: its tokens after this call, as decided,
   * plus the refill between the decision and the slot (at the slowest of its limits: the lower estimate, so a lowering
   * is never more than the provider's word asks).
   */
  private static double expected(TokenBucket bucket, Acquisition granted) {
    double rate = bucket.limits().stream().mapToDouble(Limit::refillPerSecond).min().orElse(0);
    long aheadMicros = Math.max(0, granted.slotMicros() - granted.decidedAtMicros());
    return granted.remaining() + rate * aheadMicros / 1e6;
  }

  private void count(TokenBucket bucket, String outcome) {
    counters.computeIfAbsent(outcome + "\n" + bucket.name(), k -> Counter.builder("bacen.throttle.quota.headers")
        .description("Answers whose quota headers were read, by outcome: agreed, lowered (the bucket), skipped "
            + "(lowered a moment ago), ignored (malformed)")
        .tag("bucket", bucket.name()).tag("outcome", outcome).register(registry)).increment();
  }
}
