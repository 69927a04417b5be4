package io.pixquota.throttle.store;

import io.pixquota.throttle.internal.BucketReply;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.StepHash;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.internal.EpochHistory;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.internal.StepStamp;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The reservation bucket of {@code token_bucket.lua}, in memory: {@link BucketStep}, the script's step in Java, over
 * a state of its own or one several buckets share (as replicas share a Redis hash): a bucket for one process, the
 * local share of the quota a process uses while its shared store is unavailable ({@code LOCAL_FALLBACK}), and the
 * client bucket of the simulations. The contract test runs against both this and the Redis bucket. Threadsafe.
 */
public final class LocalTokenBucket implements TokenBucket {
  /** How long a configuration counts after its last use, by default: 30 s (as a shared bucket's). */
  public static final Duration DEFAULT_CONFIGURATION_LEASE = Duration.ofSeconds(30);
  private static final StepSettings.Adaptation ADAPTATION_OFF = toStep(RateAdaptation.defaults()); // never cut

  private final String name;
  private final List<Limit> limits;
  private final double maxCost;
  private final LongSupplier nanoClock;
  private final StepHash state;
  private final RateAdaptation adaptation;
  private final StepSettings settings;
  private final EpochHistory generations = new EpochHistory();
  private volatile double rateFactor = 1;
  private volatile int configurations = 1;
  private volatile double ratePerSecond = Double.NaN;
  private final LongAdder notCounted = new LongAdder();
  private final LongAdder repairs = new LongAdder();
  private volatile long holdEndsNanos = Long.MIN_VALUE;

  /**
   * A bucket with a state of its own, the default configuration lease and rate adaptation.
   *
   * @param nanoClock the bucket's clock in nanoseconds; decisions are taken in its whole microseconds, and
   *                  {@link Acquisition#answeredAtNanos()} is read from it
   */
  public LocalTokenBucket(String name, List<Limit> limits, LongSupplier nanoClock) {
    this(name, limits, nanoClock, new StepHash(), DEFAULT_CONFIGURATION_LEASE,
        RateAdaptation.defaults());
  }

  /**
   * A bucket over {@code state}, which other buckets may share (each with its own limits: a fleet whose replicas
   * disagree), with this configuration lease and rate adaptation (null: none).
   */
  public LocalTokenBucket(String name, List<Limit> limits, LongSupplier nanoClock, StepHash state,
      Duration lease, RateAdaptation adaptation) {
    this.name = Checks.notBlank("name", name);
    this.limits = List.copyOf(limits);
    if (this.limits.isEmpty()) {
      throw new IllegalArgumentException("bucket '" + name + "' needs at least one limit");
    }
    List<StepSettings.LimitArgs> a = new ArrayList<>();
    for (Limit l : this.limits) {
      a.add(new StepSettings.LimitArgs(Double.toString(l.capacity()), Double.toString(l.refillPerSecond())));
    }
    this.maxCost = this.limits.stream().mapToDouble(Limit::capacity).min().orElseThrow();
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock cannot be null");
    this.state = Objects.requireNonNull(state, "state cannot be null");
    this.adaptation = adaptation;
    long leaseMicros = Checks.saturatedMicros(Checks.positiveAtMostADay("lease", lease));
    this.settings = new StepSettings(leaseMicros, Math.max(leaseMicros, 30_000_000L),
        adaptation == null ? ADAPTATION_OFF : toStep(adaptation), StepSettings.newReplicaId(), a);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public Acquisition acquire(double cost, Duration maxWait) {
    Checks.cost(cost, maxCost);
    long maxWaitMicros = Checks.saturatedMicros(Checks.notNegative("maxWait", maxWait));
    long nanos = nanoClock.getAsLong();
    BucketReply r = step(BucketStep.Op.ACQUIRE, cost, maxWaitMicros, null, nanos);
    return Acquisition.of(r.done(), Duration.of(r.waitMicros(), ChronoUnit.MICROS), r.remaining(),
        r.nowMicros() + r.waitMicros(), nanos, new StepStamp(r.epoch(), r.generation()));
  }

  @Override
  public double charge(double cost) {
    Checks.tokens("cost", cost);
    return step(BucketStep.Op.CHARGE, cost, 0, null, nanoClock.getAsLong()).remaining();
  }

  @Override
  public double refund(double cost) {
    Checks.tokens("cost", cost);
    return step(BucketStep.Op.REFUND, cost, 0, null, nanoClock.getAsLong()).remaining();
  }

  /**
   * Whether a cut started a newer rate generation since the booking: seen in this bucket's own answers, or in the
   * state it shares with other buckets (as every process hears of a cut through the bucket's channel).
   */
  @Override
  public Validity validity(Acquisition granted) {
    long current;
    synchronized (state) {
      current = state.generation();
    }
    long booked = StepStamp.of(granted.stamp()).generation();
    return generations.isDead(booked) || (booked != 0 && booked < current) ? Validity.RATE_CUT : Validity.VALID;
  }

  @Override
  public Refusal providerRefused(Acquisition booked, Duration retryAfter) {
    Objects.requireNonNull(booked, "booked cannot be null");
    long holdMicros = Checks.saturatedMicros(Checks.notNegative("retryAfter", retryAfter));
    if (adaptation == null) {
      return Refusal.NO_CUT;
    }
    BucketReply r = step(BucketStep.Op.CUT, 1, holdMicros, StepStamp.of(booked.stamp()).generation(),
        nanoClock.getAsLong());
    if (r.notCounted()) {
      notCounted.increment();
      return Refusal.NOT_COUNTED;
    }
    return r.done() ? Refusal.CUT : Refusal.NO_CUT;
  }

  @Override
  public BucketReadings readings() {
    long left = holdEndsNanos - nanoClock.getAsLong();
    return new BucketReadings(rateFactor, configurations, left > 0 ? Duration.ofNanos(left) : Duration.ZERO,
        repairs.sum(), notCounted.sum(), ratePerSecond);
  }

  private BucketReply step(BucketStep.Op op, double cost, long argMicros, Long booked, long nanos) {
    BucketReply r;
    synchronized (state) {
      r = BucketStep.step(state, op, cost, argMicros, null, Math.floorDiv(nanos, 1000), booked, settings);
    }
    generations.observe(r.generation());
    rateFactor = r.factor();
    configurations = r.configurations();
    ratePerSecond = r.ratePerSecond(settings.configuration());
    holdEndsNanos = nanos + Math.max(0, r.holdUntilMicros() - r.nowMicros()) * 1000;
    if (!r.repaired().isEmpty()) {
      repairs.increment();
    }
    return r;
  }

  private static StepSettings.Adaptation toStep(RateAdaptation a) {
    return new StepSettings.Adaptation(a.decrease(), a.increasePerSecond(), a.floor(),
        Checks.saturatedMicros(a.maxProviderHold()), Checks.saturatedMicros(a.loneCutRecovery()));
  }

  @Override
  public String toString() {
    return "LocalTokenBucket{name=" + name + ", limits=" + limits + "}";
  }
}
