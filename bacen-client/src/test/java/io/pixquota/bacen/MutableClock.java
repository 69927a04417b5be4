package io.pixquota.bacen;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A clock the test moves by hand: nothing sleeps. */
final class MutableClock extends Clock {
  private final AtomicReference<Instant> now;

  MutableClock(Instant start) {
    this.now = new AtomicReference<>(start);
  }

  static MutableClock atSeconds(double seconds) {
    return new MutableClock(Instant.EPOCH.plusNanos((long) (seconds * 1e9)));
  }

  void advance(Duration d) {
    now.updateAndGet(i -> i.plus(d));
  }

  void advanceMillis(long millis) {
    advance(Duration.ofMillis(millis));
  }

  void set(Instant instant) {
    now.set(instant);
  }

  void setSeconds(double seconds) {
    now.set(Instant.EPOCH.plusNanos((long) (seconds * 1e9)));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException();
  }
}
