package io.pixquota.throttle.store;

import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A bucket that grants every acquire at once, with no I/O: the bucket of a route that has a permit pool and no rate
 * (BACEN's SPI: 6 in flight, no per-second limit), where the pool's permit is the call's one decision, or the default
 * of a throttle whose every request books on a bucket of its own ({@code ThrottleRequest.withBucket}). Named after
 * what it stands for, so that the throttle's meters carry that name. Threadsafe.
 */
public final class UnlimitedBucket implements TokenBucket {
  private static final List<Limit> NONE = List.of(Limit.of(1e12, 1e12));
  private final String name;
  private final TimeSource time;

  /** An unlimited bucket of this name, its answers stamped on the system's clock. */
  public UnlimitedBucket(String name) {
    this(name, TimeSource.SYSTEM);
  }

  /** An unlimited bucket of this name, its answers stamped on {@code time}. */
  public UnlimitedBucket(String name, TimeSource time) {
    this.name = Objects.requireNonNull(name, "name cannot be null");
    this.time = Objects.requireNonNull(time, "time cannot be null");
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
