package io.pixquota.throttle.store;

import java.util.List;

/** The contract for the in-memory bucket: the same arithmetic as the script, step for step. */
class LocalTokenBucketTest extends TokenBucketContract {
  @Override
  protected boolean clockIsTheStores() {
    return true;
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits) {
    return new LocalTokenBucket(name, limits, time::nanoTime);
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits, java.util.Map<String, Double> shares) {
    return new LocalTokenBucket(name, limits, time::nanoTime, new io.pixquota.throttle.internal.StepHash(),
        LocalTokenBucket.DEFAULT_CONFIGURATION_LEASE, RateAdaptation.defaults(), shares);
  }
}
