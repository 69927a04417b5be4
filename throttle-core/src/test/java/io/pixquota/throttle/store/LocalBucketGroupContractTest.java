package io.pixquota.throttle.store;

import io.pixquota.throttle.FakeTime;

/** The bucket group contract on the in-memory group. */
class LocalBucketGroupContractTest extends BucketGroupContract {
  private final FakeTime time = FakeTime.manual(50_000);

  @Override
  protected FakeTime time() {
    return time;
  }

  @Override
  protected BucketGroup group(String name) {
    return new LocalBucketGroup(name, time::nanoTime);
  }
}
