package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real bucket that records the ask marks ({@link AskOrder}) its async acquires are given, in the order they came.
 * Published in pixquota-core's test jar.
 */
public final class AskMarks extends ForwardingBucket {
  private final List<Long> asked = new CopyOnWriteArrayList<>();

  public AskMarks(TokenBucket real) {
    super(real);
  }

  /** The {@code askedAt} of each async acquire, in the order they came. */
  public List<Long> asked() {
    return asked;
  }

  @Override
  public CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait, long askedAt) {
    asked.add(askedAt);
    return real.acquireAsync(cost, maxWait);
  }
}
