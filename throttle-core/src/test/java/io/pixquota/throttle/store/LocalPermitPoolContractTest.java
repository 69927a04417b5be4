package io.pixquota.throttle.store;

import io.pixquota.throttle.FakeTime;
import java.time.Duration;

/** The permit pool contract on the in-memory pool. */
class LocalPermitPoolContractTest extends PermitPoolContract {
  private final FakeTime time = FakeTime.manual(80_000);

  @Override
  protected FakeTime time() {
    return time;
  }

  @Override
  protected PermitPool pool(String name, int capacity, Duration lease) {
    return new LocalPermitPool(name, capacity, lease, time);
  }
}
