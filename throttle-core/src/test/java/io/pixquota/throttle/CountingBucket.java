package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** A bucket that counts what it is asked: the store's round trips. */
final class CountingBucket implements TokenBucket {
  private final TokenBucket real;
  final AtomicInteger asked = new AtomicInteger();

  CountingBucket(TokenBucket real) {
    this.real = real;
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
    asked.incrementAndGet();
    return real.acquire(cost, maxWait);
  }

  @Override
  public double charge(double cost) throws StoreUnavailableException, InterruptedException {
    asked.incrementAndGet();
    return real.charge(cost);
  }

  @Override
  public double refund(double cost) throws StoreUnavailableException, InterruptedException {
    asked.incrementAndGet();
    return real.refund(cost);
  }
}
