package io.pixquota.throttle.store;

import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.internal.GroupStep;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * A {@link BucketGroup} in memory: {@link GroupStep}, the group script's step in Java, over a store of its own or one
 * several groups share (as replicas share Redis). For one process, and for the simulations and property tests.
 * Threadsafe.
 */
public final class LocalBucketGroup implements BucketGroup {
  private final String name;
  private final LongSupplier nanoClock;
  private final GroupStep.Store store;
  private final long standingMillis;

  /** A group with a store of its own, on this clock (nanoseconds; decisions in its whole microseconds). */
  public LocalBucketGroup(String name, LongSupplier nanoClock) {
    this(name, nanoClock, new GroupStep.Store());
  }

  /** A group over {@code store}, which other groups may share, keeping standing {@link #DEFAULT_STANDING_TTL}. */
  public LocalBucketGroup(String name, LongSupplier nanoClock, GroupStep.Store store) {
    this(name, nanoClock, store, DEFAULT_STANDING_TTL);
  }

  /** A group over {@code store} keeping a bucket's standing for {@code standingTtl} after its last write. */
  public LocalBucketGroup(String name, LongSupplier nanoClock, GroupStep.Store store, Duration standingTtl) {
    this.name = Checks.notBlank("name", name);
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock cannot be null");
    this.store = Objects.requireNonNull(store, "store cannot be null");
    this.standingMillis = Checks.standingTtl("standingTtl", standingTtl).toMillis();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Acquired acquire(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits) {
    return acquire(takes, maxWait, gives, credits, null);
  }

  @Override
  public Acquired acquire(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits,
      Standing standing) {
    long maxWaitMicros = Checks.saturatedMicros(Checks.notNegative("maxWait", maxWait));
    List<GroupStep.Part> parts = BucketGroups.parts(takes, gives, standing);
    long nanos = nanoClock.getAsLong();
    GroupStep.Reply r;
    synchronized (store) {
      r = GroupStep.step(store, parts, maxWaitMicros, BucketGroups.gifts(gives), BucketGroups.memos(credits),
          BucketGroups.standing(parts, standing), standingMillis, Math.floorDiv(nanos, 1000));
    }
    return BucketGroups.acquired(r, takes, nanos);
  }

  @Override
  public CompletionStage<Acquired> acquireAsync(List<Take> takes, Duration maxWait, List<Give> gives,
      List<Credit> credits, Standing standing) {
    return CompletableFuture.completedFuture(acquire(takes, maxWait, gives, credits, standing));
  }

  @Override
  public void give(List<Give> gives, List<Credit> credits) {
    long nanos = nanoClock.getAsLong();
    synchronized (store) {
      GroupStep.step(store, BucketGroups.parts(List.of(), gives), 0, BucketGroups.gifts(gives),
          BucketGroups.memos(credits), null, standingMillis, Math.floorDiv(nanos, 1000));
    }
  }

  @Override
  public boolean redeem(String creditId, double maxRefund) {
    Checks.keyName("creditId", creditId);
    Checks.tokens("maxRefund", maxRefund);
    synchronized (store) {
      return GroupStep.redeem(store, creditId, maxRefund, standingMillis,
          Math.floorDiv(nanoClock.getAsLong(), 1000));
    }
  }

  @Override
  public String toString() {
    return "LocalBucketGroup{" + name + "}";
  }
}
