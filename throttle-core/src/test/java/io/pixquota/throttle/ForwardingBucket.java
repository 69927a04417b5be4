package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.List;

/**
 * A test's wrapper of a real bucket: its abstract operations go to {@code real}; a subclass changes what it watches or
 * delays, and the interface's defaults stay defaults. Published in pixquota-core's test jar.
 */
public abstract class ForwardingBucket implements TokenBucket {
  protected final TokenBucket real;

  protected ForwardingBucket(TokenBucket real) {
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
    return real.acquire(cost, maxWait);
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
