package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.List;

/**
 * The bucket of a route that has a permit pool and no rate (BACEN's SPI: 6 in flight, no per-second limit): every
 * acquire is granted at once, with no I/O, so the pool's permit is the call's one decision. Named after the pool, so
 * that the throttle's meters of the route carry the pool's name.
 */
final class UnlimitedBucket implements TokenBucket {
  private static final List<Limit> NONE = List.of(Limit.of(1e12, 1e12));
  private final String name;
  private final TimeSource time;

  UnlimitedBucket(String name, TimeSource time) {
    this.name = name;
    this.time = time;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<Limit> limits() {
    return NONE;
  }

  @Override
  public Acquisition acquire(double cost, Duration maxWait) {
    return Acquisition.of(true, Duration.ZERO, 1e12, 0, time.nanoTime());
  }

  @Override
  public double charge(double cost) {
    return 1e12;
  }

  @Override
  public double refund(double cost) {
    return 1e12;
  }

  @Override
  public String toString() {
    return "UnlimitedBucket{" + name + "}";
  }
}
