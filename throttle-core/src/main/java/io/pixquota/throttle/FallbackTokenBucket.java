package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.BucketReadings;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.internal.StepHash;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;

/**
 * {@code LOCAL_FALLBACK} as a decorator: the shared bucket while its store answers; while it does not, an in-memory
 * {@link LocalTokenBucket} holding {@code share} of each limit (at least one token of burst, and at least the slowest
 * refill a limit may have), asking the shared bucket again every {@code retryInterval}. One WARN per transition, and
 * the listener is told of every store error and every transition. Never unlimited.
 *
 * <p>{@link #charge} and {@link #refund} go to the bucket in use when they are called. A call booked in one and given
 * back after a transition returns its tokens to the other: at most its cost, once per such call.
 *
 * <p>This class is threadsafe.
 */
final class FallbackTokenBucket implements TokenBucket, MeterBinder {

  /** Told of store errors and of switches between the shared bucket and the local share. */
  interface Listener {
    void storeFailed(String bucket);

    void fallbackActive(String bucket, boolean active);
  }

  private final TokenBucket shared;
  private final LocalTokenBucket local;
  private final double share;
  private final FallbackState state;
  private final Map<TokenBucket, FallbackTokenBucket> flows;

  FallbackTokenBucket(TokenBucket shared, double share, Duration retryInterval, TimeSource time,
      Listener listener) {
    this.shared = Objects.requireNonNull(shared, "shared cannot be null");
    this.share = Checks.share("localShare", share);
    this.state = new FallbackState(shared.name(), share, Checks.positiveAtMostADay("retryInterval", retryInterval)
        .toNanos(), Objects.requireNonNull(time, "time cannot be null"), Objects.requireNonNull(listener,
        "listener cannot be null"));
    this.flows = new ConcurrentHashMap<>();
    List<Limit> mine = new ArrayList<>();
    for (Limit l : shared.limits()) {
      mine.add(Limit.of(Math.max(l.capacity() * share, 1),
          Math.max(l.refillPerSecond() * share, Checks.MIN_REFILL_PER_SECOND)));
    }
    // the shared bucket's shares too, when the local share holds one call per flow (else first come, first served)
    Map<String, Double> shares = shared.shares().isEmpty() || mine.size() != 1
        || mine.get(0).capacity() < shared.shares().size() ? null : shared.shares();
    this.local = new LocalTokenBucket(shared.name(), mine, time::nanoTime, new StepHash(),
        LocalTokenBucket.DEFAULT_CONFIGURATION_LEASE, RateAdaptation.defaults(), shares);
  }

  /** One flow's calls: the shared bucket's for that flow, the same local share and the same state. */
  private FallbackTokenBucket(FallbackTokenBucket of, TokenBucket sharedFlow, String flow) {
    this.shared = sharedFlow;
    this.local = of.local.forFlow(flow);
    this.share = of.share;
    this.state = of.state;
    this.flows = of.flows;
  }

  @Override
  public TokenBucket forFlow(String flow) {
    TokenBucket view = shared.forFlow(flow);
    return view == shared ? this : flows.computeIfAbsent(view, v -> new FallbackTokenBucket(this, v, flow));
  }

  @Override
  public Map<String, Double> shares() {
    return shared.shares();
  }

  @Override
  public String name() {
    return shared.name();
  }

  /** The shared bucket's limits: the ones callers are checked against. */
  @Override
  public List<Limit> limits() {
    return shared.limits();
  }

  @Override
  public Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException, InterruptedException {
    Checks.cost(cost, shared.limits().stream().mapToDouble(Limit::capacity).min().orElseThrow());
    Checks.notNegative("maxWait", maxWait);
    if (!state.useShared()) {
      return local(cost, maxWait, null);
    }
    try {
      Acquisition a = shared.acquire(cost, maxWait);
      state.sharedAnswered();
      return a;
    } catch (StoreUnavailableException e) {
      state.sharedFailed(e);
      return local(cost, maxWait, e);
    }
  }

  /** The shared bucket's async acquire while it is in use; the local share (in memory) when it fails. */
  @Override
  public CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait) {
    return acquireAsync(cost, maxWait, System.nanoTime());
  }

  @Override
  public CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait, long askedAt) {
    Checks.cost(cost, shared.limits().stream().mapToDouble(Limit::capacity).min().orElseThrow());
    Checks.notNegative("maxWait", maxWait);
    if (!state.useShared()) {
      return TokenBucket.super.acquireAsync(cost, maxWait);
    }
    // Each booking's answer (the local share's, when the shared one failed) after the one asked before it: failures
    // that complete at once run their dependents last-registered first, which booked the local share backwards.
    // Lock-free: thousands of callers contending for a monitor are let in in no particular order.
    CompletionStage<Acquisition> onShared = shared.acquireAsync(cost, maxWait, askedAt);
    CompletableFuture<Acquisition> answer = new CompletableFuture<>();
    asyncTail.getAndSet(answer).handle((previous, failure) -> null)
        .thenCompose(ignored -> sharedElseLocalAsync(onShared, e -> local(cost, maxWait, e)))
        .whenComplete((a, failure) -> {
          if (failure == null) {
            answer.complete(a);
          } else {
            answer.completeExceptionally(Async.cause(failure));
          }
        });
    return answer;
  }

  private final AtomicReference<CompletableFuture<?>> asyncTail =
      new AtomicReference<>(CompletableFuture.completedFuture(null));

  @Override
  public double charge(double cost) throws StoreUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return sharedElseLocal(() -> shared.charge(cost), () -> local.charge(cost));
  }

  @Override
  public double refund(double cost) throws StoreUnavailableException, InterruptedException {
    Checks.tokens("cost", cost);
    return sharedElseLocal(() -> shared.refund(cost), () -> local.refund(cost));
  }

  /** The shared bucket's async charge while it is in use and answers, else the local share's. */
  @Override
  public CompletionStage<Double> chargeAsync(double cost) {
    Checks.tokens("cost", cost);
    if (!state.useShared()) {
      return CompletableFuture.completedFuture(local.charge(cost));
    }
    return sharedElseLocalAsync(shared.chargeAsync(cost), e -> local.charge(cost));
  }

  /** The shared bucket's async refund while it is in use and answers, else the local share's. */
  @Override
  public CompletionStage<Double> refundAsync(double cost) {
    Checks.tokens("cost", cost);
    if (!state.useShared()) {
      return CompletableFuture.completedFuture(local.refund(cost));
    }
    return sharedElseLocalAsync(shared.refundAsync(cost), e -> local.refund(cost));
  }

  /** What the local share does when the shared bucket failed with {@code e}. */
  @FunctionalInterface
  private interface LocalOperation<T> {
    T run(StoreUnavailableException e) throws StoreUnavailableException;
  }

  /** The shared bucket's stage while it answers; when it fails to, the local share's answer, in the same stage. */
  private <T> CompletionStage<T> sharedElseLocalAsync(CompletionStage<T> onShared, LocalOperation<T> onLocal) {
    return onShared.handle((value, failure) -> {
      if (failure == null) {
        state.sharedAnswered();
        return value;
      }
      if (!(Async.cause(failure) instanceof StoreUnavailableException e)) {
        throw Async.rethrown(failure);
      }
      state.sharedFailed(e);
      try {
        return onLocal.run(e);
      } catch (StoreUnavailableException refused) {
        throw new CompletionException(refused);
      }
    });
  }

  /** A charge or refund of the shared bucket. */
  @FunctionalInterface
  private interface SharedOperation {
    double run() throws StoreUnavailableException, InterruptedException;
  }

  /** On the shared bucket when it is in use and answers, else on the local share. */
  private double sharedElseLocal(SharedOperation onShared, DoubleSupplier onLocal) throws InterruptedException {
    if (state.useShared()) {
      try {
        double left = onShared.run();
        state.sharedAnswered();
        return left;
      } catch (StoreUnavailableException e) {
        state.sharedFailed(e);
      }
    }
    return onLocal.getAsDouble();
  }

  /**
   * The shared bucket's word first (its state lost, its rate cut), then the local share's (its rate cut): a slot of
   * the local share is never lost.
   */
  @Override
  public Validity validity(Acquisition granted) {
    Validity shared = this.shared.validity(granted);
    return shared != Validity.VALID ? shared : local.validity(granted);
  }

  /** The move of the slot by the bucket whose word made it invalid ({@link #validity}). */
  @Override
  public Acquisition retimed(Acquisition granted) {
    return shared.validity(granted) != Validity.VALID ? shared.retimed(granted) : local.retimed(granted);
  }

  /** Tells the bucket in use: the shared one while it answers, else the local share. */
  @Override
  public Refusal providerRefused(Acquisition booked, Duration retryAfter) throws InterruptedException {
    if (state.useShared()) {
      try {
        Refusal outcome = shared.providerRefused(booked, retryAfter);
        state.sharedAnswered();
        return outcome;
      } catch (StoreUnavailableException e) {
        state.sharedFailed(e);
      }
    }
    return local.providerRefused(booked, retryAfter);
  }

  /** The shared bucket's readings; the rate factor is the local share's while it takes the calls. */
  @Override
  public BucketReadings readings() {
    BucketReadings r = shared.readings();
    BucketReadings l = local.readings();
    return !state.active() ? r : new BucketReadings(l.rateFactor(), r.configurations(), r.providerHoldLeft(),
        r.stateRepairs(), r.refusalsNotCounted(), l.ratePerSecond());
  }

  /** The shared bucket's meters, when it has some of its own. */
  @Override
  public void bindTo(MeterRegistry registry) {
    if (shared instanceof MeterBinder binder) {
      binder.bindTo(registry);
    }
  }

  /** Prepares the shared bucket; a store that does not answer is reported, as at any other time. */
  @Override
  public void preload() throws StoreUnavailableException, InterruptedException {
    shared.preload();
  }

  /** Whether the fallback is in use now. */
  boolean fallbackActive() {
    return state.active();
  }

  /** The local share, unless it can never hold this cost: then the call fails as if there were no fallback. */
  private Acquisition local(double cost, Duration maxWait, StoreUnavailableException cause)
      throws StoreUnavailableException {
    double capacity = local.limits().stream().mapToDouble(Limit::capacity).min().orElseThrow();
    if (cost > capacity) {
      throw new StoreUnavailableException(name(), "the shared bucket does not answer and a cost of " + cost
          + " exceeds this process's local share (capacity " + capacity + ")", cause);
    }
    return local.acquire(cost, maxWait);
  }

  @Override
  public String toString() {
    return "FallbackTokenBucket{" + shared + ", share=" + share + "}";
  }
}
