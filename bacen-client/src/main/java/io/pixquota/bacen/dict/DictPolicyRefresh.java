package io.pixquota.bacen.dict;

import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DICT's {@code GET /policies} read again when DICT refuses a lookup on one of the participant's policies: the mirror
 * follows DICT's headers down, but only this answer tells a smaller refill (DICT moved the participant to another
 * category), and a mirror refilling faster than DICT meets 429s until it is read. At most once per
 * {@link #AT_MOST_EVERY} per process, on the client's own thread, never on the caller's. A larger size is learned at
 * the next {@link DictClient#warmUp()}: until then the mirror stays within it.
 */
final class DictPolicyRefresh {
  private static final Logger log = LoggerFactory.getLogger(DictPolicyRefresh.class);
  static final Duration AT_MOST_EVERY = Duration.ofSeconds(30);

  private final TimeSource time;
  private final Executor executor;
  private final DictMetrics metrics;
  private final AtomicLong lastNanos = new AtomicLong();
  private volatile boolean ever;
  private volatile Supplier<DictPolicies> read;
  private volatile Supplier<DictPolicies> table;

  DictPolicyRefresh(TimeSource time, Executor executor, DictMetrics metrics) {
    this.time = time;
    this.executor = executor;
    this.metrics = metrics;
  }

  /** What reads DICT's policies into the mirror, and the table it applies now: set once the client is wired. */
  void bind(Supplier<DictPolicies> read, Supplier<DictPolicies> table) {
    this.table = table;
    this.read = read;
  }

  /** DICT answered 429 naming {@code policy} (null: none named). */
  void refusedBy(String policy) {
    Supplier<DictPolicies> reader = read;
    if (policy == null || reader == null) {
      return;
    }
    DictPolicy p = table.get().policy(policy);
    if (p == null || p.scope() != DictPolicy.Scope.PSP) {
      return; // a user's bucket: the payer spent it, DICT's table did not change
    }
    long now = time.nanoTime();
    long last = lastNanos.get();
    if (ever && now - last < AT_MOST_EVERY.toNanos() || !lastNanos.compareAndSet(last, now)) {
      return;
    }
    ever = true;
    try {
      executor.execute(() -> reread(reader, p));
    } catch (RejectedExecutionException e) {
      // the client is closing: nothing to read policies for
    }
  }

  private void reread(Supplier<DictPolicies> reader, DictPolicy refused) {
    try {
      DictPolicy now = reader.get().policy(refused.name());
      metrics.policiesReread("read");
      double was = refused.ratePerSecond(DictPolicy.PayerType.NATURAL_PERSON);
      double is = now == null ? was : now.ratePerSecond(DictPolicy.PayerType.NATURAL_PERSON);
      if (now != null && (now.capacity() != refused.capacity() || is != was)) {
        log.warn("DICT refused a lookup on {}: its GET /policies now says capacity {} at {}/s (the mirror had {} at "
            + "{}/s); the mirror takes DICT's", refused.name(), now.capacity(), is, refused.capacity(), was);
      }
    } catch (RuntimeException e) {
      metrics.policiesReread("failed");
      log.warn("DICT refused a lookup on {}, and its GET /policies could not be read again: {}", refused.name(),
          e.getMessage());
    }
  }
}
