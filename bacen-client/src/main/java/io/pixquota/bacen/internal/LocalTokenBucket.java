package io.pixquota.bacen.internal;

import io.pixquota.bacen.Acquisition;
import io.pixquota.bacen.Limit;
import io.pixquota.bacen.RateAdaptation;
import io.pixquota.bacen.TokenBucket;
import io.pixquota.bacen.TokenBucketConfig;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * The reservation bucket of {@code token_bucket.lua}, in memory: {@link BucketStep}, the script's step in Java, over
 * a state of its own or one several buckets share (as replicas share a Redis hash): the local share of the quota a
 * process uses while Redis is unavailable ({@code LOCAL_FALLBACK}), and the client bucket of the simulations. The
 * shared contract test runs against both this and the Redis bucket. This class is threadsafe.
 */
public final class LocalTokenBucket implements TokenBucket {
  private static final BucketStep.Adaptation ADAPTATION_OFF = toStep(RateAdaptation.defaults()); // never cut

  private final String name;
  private final List<Limit> limits;
  private final List<BucketStep.LimitArgs> args;
  private final double maxCost;
  private final LongSupplier nanoClock;
  private final BucketStep.State state;
  private final long leaseMicros;
  private final RateAdaptation adaptation;
  private final StateEpochs generations = new StateEpochs();
  private volatile double rateFactor = 1;
  private volatile int configurations = 1;

  /**
   * A bucket with a state of its own, the default configuration lease and rate adaptation.
   *
   * @param nanoClock the bucket's clock in nanoseconds; decisions are taken in its whole microseconds, and
   *                  {@link Acquisition#answeredAtNanos()} is read from it
   */
  public LocalTokenBucket(String name, List<Limit> limits, LongSupplier nanoClock) {
    this(name, limits, nanoClock, new BucketStep.State(), TokenBucketConfig.DEFAULT_CONFIGURATION_LEASE,
        RateAdaptation.defaults());
  }

  /**
   * A bucket over {@code state}, which other buckets may share (each with its own limits: a fleet whose replicas
   * disagree), with this configuration lease and rate adaptation (null: none).
   */
  public LocalTokenBucket(String name, List<Limit> limits, LongSupplier nanoClock, BucketStep.State state,
      Duration lease, RateAdaptation adaptation) {
    this.name = Checks.notBlank("name", name);
    this.limits = List.copyOf(limits);
    if (this.limits.isEmpty()) {
      throw new IllegalArgumentException("bucket '" + name + "' needs at least one limit");
    }
    List<BucketStep.LimitArgs> a = new ArrayList<>();
    for (Limit l : this.limits) {
      a.add(new BucketStep.LimitArgs(Double.toString(l.capacity()), Double.toString(l.refillPerSecond())));
    }
    this.args = List.copyOf(a);
    this.maxCost = this.limits.stream().mapToDouble(Limit::capacity).min().orElseThrow();
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock cannot be null");
    this.state = Objects.requireNonNull(state, "state cannot be null");
    this.leaseMicros = Checks.saturatedMicros(Checks.positiveAtMostADay("lease", lease));
    this.adaptation = adaptation;
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
    BucketStep.Reply r = step(BucketStep.Op.ACQUIRE, cost, maxWaitMicros, null, nanos);
    return new Acquisition(r.done(), Duration.of(r.waitMicros(), ChronoUnit.MICROS), r.remaining(),
        r.nowMicros() + r.waitMicros(), nanos, r.epoch(), r.generation());
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
  public boolean superseded(Acquisition granted) {
    long current;
    synchronized (state) {
      current = state.generation();
    }
    return generations.isDead(granted.rateGeneration())
        || (granted.rateGeneration() != 0 && granted.rateGeneration() < current);
  }

  @Override
  public boolean providerRefused(Acquisition booked, Duration retryAfter) {
    Objects.requireNonNull(booked, "booked cannot be null");
    long holdMicros = Checks.saturatedMicros(Checks.notNegative("retryAfter", retryAfter));
    if (adaptation == null) {
      return false;
    }
    return step(BucketStep.Op.CUT, 1, holdMicros, booked.rateGeneration(), nanoClock.getAsLong()).done();
  }

  @Override
  public double rateFactor() {
    return rateFactor;
  }

  @Override
  public int configurations() {
    return configurations;
  }

  private BucketStep.Reply step(BucketStep.Op op, double cost, long argMicros, Long booked, long nanos) {
    BucketStep.Reply r;
    synchronized (state) {
      r = BucketStep.step(state, op, cost, argMicros, null, Math.floorDiv(nanos, 1000), leaseMicros,
          adaptation == null ? ADAPTATION_OFF : toStep(adaptation), booked, args);
    }
    generations.observe(r.generation());
    rateFactor = r.factor();
    configurations = r.configurations();
    return r;
  }

  private static BucketStep.Adaptation toStep(RateAdaptation a) {
    return new BucketStep.Adaptation(a.decrease(), a.increasePerSecond(), a.floor());
  }

  @Override
  public String toString() {
    return "LocalTokenBucket{name=" + name + ", limits=" + limits + "}";
  }
}
