package io.pixquota.throttle;

import java.util.Optional;
import java.util.List;
import java.util.ArrayList;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.BucketReadings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The throttle's meters, tagged by bucket name, and the wait and the permits also by priority class (low
 * cardinality). Without a registry, a composite registry with no children: every meter is a no-op.
 */
final class ThrottleMetrics implements FallbackTokenBucket.Listener {
  private static final String IGNORED = "429s on admitted calls that did not cut the fleet's rate, by reason: "
      + "no-signal (not the provider's), uncorroborated (this replica made the last cut and others called since)";
  private final MeterRegistry registry;
  private final Map<String, Meters> byBucket = new ConcurrentHashMap<>();
  private final Map<String, String> quotaOf = new ConcurrentHashMap<>(); // bucket name -> quota name
  private final FlowMetrics flows;

  /** The meters of one priority class on one bucket. */
  private final class ClassMeters {
    final Timer wait;
    final Counter granted;
    final Counter refused;
    final Counter deferred;

    ClassMeters(String bucket, Priority priority) {
      Tags tags = tagsOf(bucket).and("priority", priority.name().toLowerCase(Locale.ROOT));
      wait = Timer.builder("bacen.throttle.wait")
          .description("Time a call waited for its slot in the shared bucket; rising = demand above the quota")
          .tags(tags).publishPercentiles(0.5, 0.9, 0.99)
          .publishPercentileHistogram() // Prometheus keeps the histogram
          .maximumExpectedValue(Duration.ofSeconds(60)).register(registry);
      granted = Counter.builder("bacen.throttle.permits").description("Slots booked or refused by the bucket")
          .tags(tags).tag("result", "granted").register(registry);
      refused = Counter.builder("bacen.throttle.permits").description("Slots booked or refused by the bucket")
          .tags(tags).tag("result", "refused").register(registry);
      deferred = Counter.builder("bacen.throttle.deferred")
          .description("Asks of a class with a horizon (batch) that found no slot that soon and asked again later")
          .tags(tags).register(registry);
    }
  }

  private final class Meters {
    final String bucket;
    final Map<Priority, ClassMeters> byClass = new ConcurrentHashMap<>();
    final Timer lateness;
    final Timer answer;
    final Counter redisErrors;
    final Counter rebooked;
    final Counter marginExceeded;
    final Counter stateLost;
    final Counter superseded;
    final Counter providerRefused;
    final Counter rateCuts;
    final AtomicInteger fallbackActive = new AtomicInteger();
    final AtomicLong marginExceededCount = new AtomicLong();
    volatile long lastMarginExceededNanos;

    Meters(String bucket) {
      this.bucket = bucket;
      lateness = Timer.builder("bacen.throttle.lateness")
          .description("How late a call left after its booked slot; the quota plan assumes a bound on it")
          .tags(tagsOf(bucket)).publishPercentiles(0.5, 0.99).register(registry);
      answer = Timer.builder("bacen.throttle.answer")
          .description("Time from sending a call to the provider's answer: its latency, without the wait. With "
              + "bacen.throttle.lateness, it bounds how far from its slot a call reaches the provider (a plan's J)")
          .tags(tagsOf(bucket)).publishPercentiles(0.5, 0.99).register(registry);
      redisErrors = Counter.builder("bacen.throttle.redis.errors")
          .description("Calls to the shared bucket that failed or timed out").tags(tagsOf(bucket))
          .register(registry);
      rebooked = Counter.builder("bacen.throttle.rebooked")
          .description("Calls that woke later than the late limit after their slot and booked a fresh one")
          .tags(tagsOf(bucket)).register(registry);
      stateLost = Counter.builder("bacen.throttle.state.lost")
          .description("Calls whose booked slot was in a bucket state Redis lost (restart, failover, deleted key); "
              + "they booked again")
          .tags(tagsOf(bucket)).register(registry);
      marginExceeded = Counter.builder("bacen.throttle.margin.exceeded")
          .description("Calls that left later after their slot than the jitter their quota plan assumes")
          .tags(tagsOf(bucket)).register(registry);
      superseded = Counter.builder("bacen.throttle.superseded")
          .description("Calls whose slot was booked at a rate the provider's 429 cut since; they booked again")
          .tags(tagsOf(bucket)).register(registry);
      providerRefused = Counter.builder("bacen.throttle.provider.refused")
          .description("429s from the provider on calls the bucket admitted: 429s the bucket did not expect")
          .tags(tagsOf(bucket)).register(registry);
      rateCuts = Counter.builder("bacen.throttle.rate.cuts")
          .description("Cuts of the fleet's rate this process made after a 429 on a call booked at the current rate")
          .tags(tagsOf(bucket)).register(registry);
      registry.gauge("bacen.throttle.fallback.active", tagsOf(bucket), fallbackActive);
    }

    ClassMeters of(Priority priority) {
      return byClass.computeIfAbsent(priority, p -> new ClassMeters(bucket, p));
    }
  }

  private final PermitMetrics permits;

  MeterRegistry registry() {
    return registry;
  }

  ThrottleMetrics(MeterRegistry registry) {
    this.registry = registry == null ? new CompositeMeterRegistry() : registry;
    this.permits = new PermitMetrics(this.registry);
    this.flows = new FlowMetrics(this.registry);
  }

  /** The meters of shares within the quotas, by flow. */
  FlowMetrics flows() {
    return flows;
  }

  /** The meters of the throttle's permit pools. */
  PermitMetrics permits() {
    return permits;
  }

  /**
   * Creates the bucket's meters now, so that no call pays for it (a class's meters other than the default class's
   * are made at its first call), and its gauges of the fleet's state as this process last saw it: the rate in force
   * and the live configurations; and the bucket's own meters, when it has some ({@link MeterBinder}: a shared store's
   * script cache misses, say).
   */
  /** The readings' rate, or, before any answer, this process's slowest limit at the readings' factor. */
  private static double rateInForce(BucketReadings r, double slowest) {
    return Double.isNaN(r.ratePerSecond()) ? r.rateFactor() * slowest : r.ratePerSecond();
  }

  /**
   * Names the quota of {@code bucket}'s meters (their {@code quota} tag); before its meters are made. A bucket no quota
   * names (the default route's, a rule's) is its own quota.
   */
  void quota(String bucket, String quota) {
    quotaOf.putIfAbsent(bucket, quota);
  }

  private Tags tagsOf(String bucket) {
    return Tags.of("bucket", bucket, "quota", quotaOf.getOrDefault(bucket, bucket));
  }

  void register(TokenBucket bucket, Priority defaultPriority) {
    of(bucket.name()).of(defaultPriority);
    flows.register(bucket, quotaOf.getOrDefault(bucket.name(), bucket.name()));
    Tags tags = tagsOf(bucket.name());
    double slowest = bucket.limits().stream().mapToDouble(Limit::refillPerSecond).min().orElse(Double.NaN);
    Gauge.builder("bacen.throttle.rate.factor", bucket, b -> b.readings().rateFactor())
        .description("The share of the configured rate in force (1 unless the provider's 429s cut it)")
        .tags(tags).register(registry);
    Gauge.builder("bacen.throttle.rate.effective", bucket, b -> rateInForce(b.readings(), slowest))
        .description("The refill per second in force: the slowest limit of every configuration the fleet runs, "
            + "times the rate factor").baseUnit("tokens").tags(tags).register(registry);
    Gauge.builder("bacen.throttle.configurations", bucket, b -> b.readings().configurations())
        .description("Configurations of this bucket in use by the fleet (more than 1: replicas disagree)")
        .tags(tags).register(registry);
    Gauge.builder("bacen.throttle.provider.hold", bucket, b -> b.readings().providerHoldLeft().toNanos() / 1e9)
        .description("Seconds left of the hold the provider's last 429 put on every replica (its Retry-After, at "
            + "most the rate adaptation's maxProviderHold)").baseUnit("seconds").tags(tags).register(registry);
    FunctionCounter.builder("bacen.throttle.state.repaired", bucket, b -> b.readings().stateRepairs())
        .description("Calls that found fields of the bucket's shared state that could not be trusted and had them "
            + "reset (garbage, a lease or hold beyond the fleet's bounds, a Redis clock that went back)")
        .tags(tags).register(registry);
    for (String reason : new String[] {"no-signal", "uncorroborated"}) { // at 0 from the start, for alerts
      Counter.builder("bacen.throttle.provider.ignored").description(IGNORED).tags(tags).tag("reason", reason)
          .register(registry);
    }
    if (bucket instanceof MeterBinder binder) {
      binder.bindTo(registry);
    }
  }

  private Meters of(String bucket) {
    return byBucket.computeIfAbsent(bucket, Meters::new);
  }

  void granted(String bucket, Priority priority, Duration wait) {
    ClassMeters m = of(bucket).of(priority);
    m.granted.increment();
    m.wait.record(wait);
  }

  void refused(String bucket, Priority priority) {
    of(bucket).of(priority).refused.increment();
  }

  void deferred(String bucket, Priority priority) {
    of(bucket).of(priority).deferred.increment();
  }

  void lateness(String bucket, long nanos) {
    of(bucket).lateness.record(Duration.ofNanos(Math.max(0, nanos)));
  }

  /** The provider answered a call {@code nanos} after it was sent. */
  void answered(String bucket, long nanos) {
    of(bucket).answer.record(Duration.ofNanos(Math.max(0, nanos)));
  }

  void rebooked(String bucket) {
    of(bucket).rebooked.increment();
  }

  void stateLost(String bucket) {
    of(bucket).stateLost.increment();
  }

  void superseded(String bucket) {
    of(bucket).superseded.increment();
  }

  void providerRefused(String bucket) {
    of(bucket).providerRefused.increment();
  }

  void rateCut(String bucket) {
    of(bucket).rateCuts.increment();
  }

  /**
   * A 429 on an admitted call that did not count against the fleet's rate: {@code no-signal} (it lacked the
   * provider's quota header) or {@code uncorroborated} (this replica made the last cut, and others asked since).
   */
  void refusalIgnored(String bucket, String reason) {
    Counter.builder("bacen.throttle.provider.ignored").description(IGNORED).tags(tagsOf(bucket).and("reason", reason))
        .register(registry).increment();
  }

  /** A call left later than its plan's J; {@code nowNanos} on the caller's clock, for {@link #status}. */
  void marginExceeded(String bucket, long nowNanos) {
    Meters m = of(bucket);
    m.lastMarginExceededNanos = nowNanos;
    m.marginExceededCount.incrementAndGet();
    m.marginExceeded.increment();
  }

  /** What this process saw of a bucket, whatever the registry: see {@link Status}. */
  Status status(String bucket) {
    Meters m = of(bucket);
    return new Status(m.fallbackActive.get() == 1, m.marginExceededCount.get(), m.lastMarginExceededNanos);
  }

  /**
   * @param fallbackActive          whether the local fallback takes the bucket's calls now
   * @param marginExceeded          calls that left later than their plan's J, since start
   * @param lastMarginExceededNanos when the last of them left (the caller's clock); meaningless while none did
   */
  record Status(boolean fallbackActive, long marginExceeded, long lastMarginExceededNanos) {}

  void redisError(String bucket) {
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

  /** Each bucket's status at {@code now}, as {@link Throttle#status()} shows it. */
  List<BucketStatus> statuses(List<TokenBucket> buckets, long now) {
    List<BucketStatus> out = new ArrayList<>();
    for (TokenBucket bucket : buckets) {
      Status s = status(bucket.name());
      out.add(new BucketStatus(bucket.name(), s.fallbackActive(), s.marginExceeded(), s.marginExceeded() == 0
          ? Optional.empty() : Optional.of(Duration.ofNanos(Math.max(0, now - s.lastMarginExceededNanos())))));
    }
    return out;
  }
}
