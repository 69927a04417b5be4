package io.pixquota.bacen;

import io.pixquota.bacen.internal.LocalTokenBucket;
import java.util.List;

/** The contract for the in-memory bucket: the same arithmetic as the script, step for step. */
class LocalTokenBucketTest extends TokenBucketContract {
  @Override
  boolean clockIsTheStores() {
    return true;
  }

  @Override
  TokenBucket bucket(String name, List<Limit> limits) {
    return new LocalTokenBucket(name, limits, time::nanoTime);
  }
}
