package io.pixquota.throttle.store;

import io.pixquota.throttle.internal.BucketReply;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.StepHash;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.internal.EpochHistory;
import io.pixquota.throttle.internal.GenerationChanges;
import io.pixquota.throttle.internal.StoredState;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.internal.StepStamp;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
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
  private final Heard heard;
  private final Map<String, LocalTokenBucket> flows;
  private final Map<String, Double> shares;
  private final String flow; // with shares, the flow whose calls this is (forFlow); else null

  /** What the bucket's answers said, for every flow's calls. */
  private static final class Heard {
    final EpochHistory generations = new EpochHistory();
    final GenerationChanges changes = new GenerationChanges();
    volatile long epoch; // guarded by the state's monitor when written
    volatile double rateFactor = 1;
    volatile int configurations = 1;
    volatile double ratePerSecond = Double.NaN;
    final LongAdder notCounted = new LongAdder();
    final LongAdder repairs = new LongAdder();
    volatile long holdEndsNanos = Long.MIN_VALUE;
  }

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
    this(name, limits, nanoClock, state, lease, adaptation, null);
  }

  /**
   * The same with shares within the bucket: each flow's weight, "*" among them (the flows not named);
   * {@link #forFlow} gives the bucket of one flow's calls. Null: no shares.
   *
   * @throws IllegalArgumentException for shares the bucket cannot hold (several limits, a capacity under one call per
   *                                  flow, a weight below 0, a bad flow name, no "*"), naming them
   */
  public LocalTokenBucket(String name, List<Limit> limits, LongSupplier nanoClock, StepHash state,
      Duration lease, RateAdaptation adaptation, Map<String, Double> shares) {
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
        adaptation == null ? ADAPTATION_OFF : toStep(adaptation), StepSettings.newReplicaId(), a, shares);
    this.shares = shares == null ? Map.of() : Map.copyOf(shares);
    this.heard = new Heard();
    this.flows = new ConcurrentHashMap<>();
    this.flow = null;
  }

  private LocalTokenBucket(LocalTokenBucket bucket, String flow) {
    this.name = bucket.name;
    this.limits = bucket.limits;
    this.maxCost = bucket.maxCost;
    this.nanoClock = bucket.nanoClock;
    this.state = bucket.state;
    this.adaptation = bucket.adaptation;
    this.settings = bucket.settings;
    this.shares = bucket.shares;
    this.heard = bucket.heard;
    this.flows = bucket.flows;
    this.flow = flow;
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
    BucketReply r = step(BucketStep.Op.ACQUIRE, cost, maxWaitMicros, null, nanos, flow);
    return Acquisition.of(r.done(), Duration.of(r.waitMicros(), ChronoUnit.MICROS), r.remaining(),
        r.nowMicros() + r.waitMicros(), nanos, new StepStamp(r.epoch(), r.generation()), r.flow());
  }

  @Override
  public double charge(double cost) {
    Checks.tokens("cost", cost);
    return step(BucketStep.Op.CHARGE, cost, 0, null, nanoClock.getAsLong(), flow).remaining();
  }

  @Override
  public double refund(double cost) {
    Checks.tokens("cost", cost);
    return step(BucketStep.Op.REFUND, cost, 0, null, nanoClock.getAsLong(), flow).remaining();
  }

  /**
   * With shares, the bucket of {@code flow}'s calls: the same bucket, whose acquires, charges and refunds count
   * against that flow's share (a flow the shares do not name takes "*"'s). Without shares, or for a null flow: this.
   */
  @Override
  public LocalTokenBucket forFlow(String flow) {
    if (shares.isEmpty() || flow == null) {
      return this;
    }
    return flows.computeIfAbsent(shares.containsKey(flow) ? flow : "*", f -> new LocalTokenBucket(this, f));
  }

  @Override
  public Map<String, Double> shares() {
    return shares;
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
    return heard.generations.isDead(booked) || (booked != 0 && booked < current) ? Validity.RATE_CUT : Validity.VALID;
  }

  /**
   * A slot of an older rate generation moved through the changes since, as the state records them (another bucket on
   * the same state may have made them, as another process does); null when one is unknown or the slot had come.
   */
  @Override
  public Acquisition retimed(Acquisition granted) {
    StepStamp stamp = StepStamp.of(granted.stamp());
    long current;
    synchronized (state) {
      current = state.generation();
      heard.changes.observe(StoredState.change(state.hash(), nanoClock.getAsLong() / 1000));
    }
    long moved = heard.changes.moved(stamp.generation(), current, granted.slotMicros());
    return moved < 0 ? null : granted.movedTo(moved, new StepStamp(stamp.epoch(), current));
  }

  @Override
  public Refusal providerRefused(Acquisition booked, Duration retryAfter) {
    Objects.requireNonNull(booked, "booked cannot be null");
    long holdMicros = Checks.saturatedMicros(Checks.notNegative("retryAfter", retryAfter));
    if (adaptation == null) {
      return Refusal.NO_CUT;
    }
    BucketReply r = step(BucketStep.Op.CUT, 1, holdMicros, StepStamp.of(booked.stamp()).generation(),
        nanoClock.getAsLong(), null);
    if (r.notCounted()) {
      heard.notCounted.increment();
      return Refusal.NOT_COUNTED;
    }
    return r.done() ? Refusal.CUT : Refusal.NO_CUT;
  }

  @Override
  public BucketReadings readings() {
    long left = heard.holdEndsNanos - nanoClock.getAsLong();
    return new BucketReadings(heard.rateFactor, heard.configurations, left > 0 ? Duration.ofNanos(left)
        : Duration.ZERO, heard.repairs.sum(), heard.notCounted.sum(), heard.ratePerSecond);
  }

  private BucketReply step(BucketStep.Op op, double cost, long argMicros, Long booked, long nanos, String flow) {
    BucketReply r;
    synchronized (state) {
      r = BucketStep.step(state, op, cost, argMicros, null, Math.floorDiv(nanos, 1000), booked, settings, flow);
    }
    heard.changes.observe(r.change());
    if (r.epoch() != heard.epoch) {
      heard.epoch = r.epoch();
      heard.generations.reset(r.generation()); // a new state (the old one expired): its generations are its own
    } else {
      heard.generations.observeNewer(r.generation()); // replies of two threads may come in either order
    }
    heard.rateFactor = r.factor();
    heard.configurations = r.configurations();
    heard.ratePerSecond = r.ratePerSecond(settings.configuration());
    heard.holdEndsNanos = nanos + Math.max(0, r.holdUntilMicros() - r.nowMicros()) * 1000;
    if (!r.repaired().isEmpty()) {
      heard.repairs.increment();
    }
    return r;
  }

  private static StepSettings.Adaptation toStep(RateAdaptation a) {
    return new StepSettings.Adaptation(a.decrease(), a.increasePerSecond(), a.floor(),
        Checks.saturatedMicros(a.maxProviderHold()), Checks.saturatedMicros(a.loneCutRecovery()));
  }

  @Override
  public String toString() {
    return "LocalTokenBucket{name=" + name + ", limits=" + limits + (flow == null ? "" : ", flow=" + flow) + "}";
  }
}
