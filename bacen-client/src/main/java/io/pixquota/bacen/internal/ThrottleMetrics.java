package io.pixquota.bacen.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The throttle's meters, tagged by bucket name only (low cardinality). Without a registry, a composite registry with
 * no children: every meter is a no-op.
 */
public final class ThrottleMetrics implements FallbackTokenBucket.Listener {
  private final MeterRegistry registry;
  private final Map<String, Meters> byBucket = new ConcurrentHashMap<>();

  private final class Meters {
    final Timer wait;
    final Timer lateness;
    final Counter granted;
    final Counter refused;
    final Counter redisErrors;
    final Counter rebooked;
    final Counter marginExceeded;
    final Counter stateLost;
    final AtomicInteger fallbackActive = new AtomicInteger();

    Meters(String bucket) {
      wait = Timer.builder("bacen.throttle.wait")
          .description("Time a call waited for its slot in the shared bucket; rising = demand above the quota")
          .tag("bucket", bucket).publishPercentiles(0.5, 0.9, 0.99)
          .publishPercentileHistogram() // Prometheus keeps the histogram
          .maximumExpectedValue(Duration.ofSeconds(60)).register(registry);
      lateness = Timer.builder("bacen.throttle.lateness")
          .description("How late a call left after its booked slot; the quota plan assumes a bound on it")
          .tag("bucket", bucket).publishPercentiles(0.5, 0.99).register(registry);
      granted = Counter.builder("bacen.throttle.permits").description("Slots booked or refused by the bucket")
          .tag("bucket", bucket).tag("result", "granted").register(registry);
      refused = Counter.builder("bacen.throttle.permits").description("Slots booked or refused by the bucket")
          .tag("bucket", bucket).tag("result", "refused").register(registry);
      redisErrors = Counter.builder("bacen.throttle.redis.errors")
          .description("Calls to the shared bucket that failed or timed out").tag("bucket", bucket)
          .register(registry);
      rebooked = Counter.builder("bacen.throttle.rebooked")
          .description("Calls that woke later than the late limit after their slot and booked a fresh one")
          .tag("bucket", bucket).register(registry);
      stateLost = Counter.builder("bacen.throttle.state.lost")
          .description("Calls whose booked slot was in a bucket state Redis lost (restart, failover, deleted key); "
              + "they booked again")
          .tag("bucket", bucket).register(registry);
      marginExceeded = Counter.builder("bacen.throttle.margin.exceeded")
          .description("Calls that left later after their slot than the jitter their quota plan assumes")
          .tag("bucket", bucket).register(registry);
      registry.gauge("bacen.throttle.fallback.active", Tags.of("bucket", bucket), fallbackActive);
    }
  }

  public ThrottleMetrics(MeterRegistry registry) {
    this.registry = registry == null ? new CompositeMeterRegistry() : registry;
    FunctionCounter.builder("bacen.throttle.script.noscript", LuaScript.TOKEN_BUCKET, LuaScript::noScriptCount)
        .description("Calls that met NOSCRIPT (a restarted or promoted node) and sent the script's body instead, "
            + "in this process").register(this.registry);
  }

  /** Creates the bucket's meters now, so that no call pays for it. */
  public void register(String bucket) {
    of(bucket);
  }

  private Meters of(String bucket) {
    return byBucket.computeIfAbsent(bucket, Meters::new);
  }

  public void granted(String bucket, Duration wait) {
    Meters m = of(bucket);
    m.granted.increment();
    m.wait.record(wait);
  }

  public void refused(String bucket) {
    of(bucket).refused.increment();
  }

  public void lateness(String bucket, long nanos) {
    of(bucket).lateness.record(Duration.ofNanos(Math.max(0, nanos)));
  }

  public void rebooked(String bucket) {
    of(bucket).rebooked.increment();
  }

  public void stateLost(String bucket) {
    of(bucket).stateLost.increment();
  }

  public void marginExceeded(String bucket) {
    of(bucket).marginExceeded.increment();
  }

  public void redisError(String bucket) {
    of(bucket).redisErrors.increment();
  }

  @Override
  public void storeFailed(String bucket) {
    redisError(bucket);
  }

  @Override
  public void fallbackActive(String bucket, boolean active) {
    of(bucket).fallbackActive.set(active ? 1 : 0);
  }
}
