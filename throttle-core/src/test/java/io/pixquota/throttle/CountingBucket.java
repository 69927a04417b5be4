package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** A bucket that counts what it is asked: the store's round trips. */
final class CountingBucket extends ForwardingBucket {
  final AtomicInteger asked = new AtomicInteger();

  CountingBucket(TokenBucket real) {
    super(real);
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
