package io.pixquota.throttle.redis;

import io.pixquota.throttle.store.Acquisition;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What this process knows of when one flow's next call can have a slot of a shared bucket, from the script's last
 * refusal of it, so that a call that could not wait that long is refused from memory instead of by a script run. A
 * service whose callers retry at once when refused (a retry loop, a client's own retries, a queue consumer) would
 * otherwise make every refusal a script run, and take the Redis CPU every other quota on it needs.
 *
 * <p>The rule, stated once. A refusal of a call of cost {@code c} answered at {@code t} with the wait {@code w} says
 * that the flow's next slot for {@code c} was {@code t + w}. A later call of this flow, of cost at least {@code c},
 * whose max wait ends before {@code t + w} is refused from that, without a round trip, while the knowledge holds: for
 * {@link #STALE_NANOS} after it was learned, and no longer than this process sees nothing that can bring the slot
 * earlier (a refund or a cancel of its own, a newer state, rate generation or factor, another configuration coming or
 * going: {@link BucketNews#version()}). Once stale, the next call asks the script, and the others are refused from
 * what was known until its answer comes (one round trip more at most). What this process cannot see within those
 * 100 ms (another process's refund, the rate climbing back, a token another flow lends once it stopped asking) can
 * only make a call refused here one that the script would have granted: a refusal never admits anything, so the
 * fleet's admissions stay within the bucket's bound, and a refused call consumed nothing either way.
 *
 * <p>A refusal from memory yields the caller's thread once before it returns ({@link Thread#yield}; a virtual thread
 * lets its carrier go): it costs a few microseconds, and callers that call again at once when refused would otherwise
 * spin on these refusals and keep their own process's due calls (its timer, the threads it wakes) off the CPU, so that
 * those woke past the late limit and booked again, their slots unused. Threadsafe.
 */
final class RefusalMemory {
  /** How long a refusal is believed without asking again: a tenth of a second, a round trip a flow every 100 ms. */
  static final long STALE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private record Known(double cost, long freeAtNanos, long learnedAtNanos, long version, Acquisition refusal) {}

  private final LongSupplier nanoClock;
  private final LongSupplier newsVersion;
  private final LongAdder answered;
  private final boolean on;
  private final Runnable pause;
  private final AtomicBoolean asking = new AtomicBoolean();
  private volatile Known known;

  /**
   * @param newsVersion what the process has heard of the bucket that can bring a slot earlier, as a count
   * @param answered    counts the refusals answered from memory (the bucket's, every flow's)
   * @param on          false for a bucket that decides on a clock of the caller's (client-clock mode): its waits
   *                    are not this process's time, and every call asks the script
   */
  RefusalMemory(LongSupplier nanoClock, LongSupplier newsVersion, LongAdder answered, boolean on) {
    this(nanoClock, newsVersion, answered, on, Thread::yield);
  }

  /** @param pause what a refusal from memory does before it returns: {@link Thread#yield}, or a test's count */
  RefusalMemory(LongSupplier nanoClock, LongSupplier newsVersion, LongAdder answered, boolean on, Runnable pause) {
    this.nanoClock = nanoClock;
    this.newsVersion = newsVersion;
    this.answered = answered;
    this.on = on;
    this.pause = pause;
  }

  /** The refusal of a call of {@code cost} that may wait {@code maxWaitNanos}, from memory; null: ask the script. */
  Acquisition refusal(double cost, long maxWaitNanos) {
    Known k = known;
    if (!on || k == null || cost < k.cost || k.version != newsVersion.getAsLong()) {
      return null;
    }
    long now = nanoClock.getAsLong();
    long wait = k.freeAtNanos - now;
    if (wait <= maxWaitNanos) {
      return null; // the slot known may be within its wait: the script decides
    }
    if (now - k.learnedAtNanos > STALE_NANOS && asking.compareAndSet(false, true)) {
      return null; // stale: this call asks, and the others are refused from what is known until its answer
    }
    answered.increment();
    pause.run(); // a caller that calls again at once lets the threads its process woke run first
    Acquisition r = k.refusal;
    return Acquisition.of(false, Duration.ofNanos(wait), r.remaining(), r.slotMicros(), now, r.stamp(), r.tokensOf());
  }

  /** The script's answer to a call of {@code cost} (null with a failure): a refusal is remembered. */
  void answered(double cost, Acquisition a) {
    if (a == null) {
      forget();
      return;
    }
    long version = newsVersion.getAsLong();
    if (!a.granted() && a.waits()) {
      known = new Known(cost, a.answeredAtNanos() + a.waitTime().toNanos(), a.answeredAtNanos(), version, a);
    } else {
      Known k = known;
      if (k != null && a.granted() && a.answeredAtNanos() + a.waitTime().toNanos() < k.freeAtNanos) {
        known = null; // a slot came sooner than known: something this process did not see moved it
      }
    }
    asking.set(false);
  }

  /** Something this process did brought the slot earlier (a refund, a cancel): ask the script next. */
  void forget() {
    known = null;
    asking.set(false);
  }
}
