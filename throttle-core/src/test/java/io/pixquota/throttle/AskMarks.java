package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real bucket that records the ask marks ({@link AskOrder}) its async acquires are given, in the order they came.
 * Published in pixquota-core's test jar.
 */
public final class AskMarks implements TokenBucket {
  private final TokenBucket real;
  private final List<Long> asked = new CopyOnWriteArrayList<>();

  public AskMarks(TokenBucket real) {
    this.real = real;
  }

  /** The {@code askedAt} of each async acquire, in the order they came. */
  public List<Long> asked() {
    return asked;
  }

  @Override
  public String name() {
    return real.name();
  }

  @Override
  public List<Limit> limits() {
    return real.limits();
  }

  @Override
  public Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException, InterruptedException {
    return real.acquire(cost, maxWait);
  }

  @Override
  public CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait, long askedAt) {
    asked.add(askedAt);
    return real.acquireAsync(cost, maxWait);
  }

  @Override
  public double charge(double cost) throws StoreUnavailableException, InterruptedException {
    return real.charge(cost);
  }

  @Override
  public double refund(double cost) throws StoreUnavailableException, InterruptedException {
    return real.refund(cost);
  }
}
