package io.pixquota.throttle.redis;

import io.pixquota.throttle.internal.BucketReply;
import io.pixquota.throttle.internal.EpochHistory;
import io.pixquota.throttle.internal.GenerationChanges;
import io.pixquota.throttle.internal.StepStamp;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one process knows of a shared bucket's fleet-wide state, from the script's replies only: the state's epoch and
 * the rate's generation (which void slots booked before them), the rate factor, the live configurations, the
 * provider's hold, and the fields the script had to repair. Every WARN here is logged at most once a minute per kind.
 * Threadsafe.
 */
final class BucketNews {
  private static final Logger LOG = LoggerFactory.getLogger(RedisTokenBucket.class);
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  private final String bucket;
  private final String myConfiguration;
  private final TimeSource time;
  final EpochHistory epochs = new EpochHistory();
  final EpochHistory generations = new EpochHistory();
  final GenerationChanges changes = new GenerationChanges();
  private volatile BucketReply latest; // null before any reply: the factor, configurations and rate are read from it
  private volatile Rate rate; // the rate in force, computed when read, for the latest reply's others and factor
  private volatile long holdEndsNanos;
  private final LongAdder repairs = new LongAdder();
  private final AtomicLong version = new AtomicLong();
  private final LongAdder notCounted = new LongAdder();
  private final AtomicLong lastDisagreementWarn;
  private final AtomicLong lastRepairWarn;
  private final AtomicLong lastNotCountedWarn;
  private final AtomicLong lastHoldWarn;

  BucketNews(String bucket, String myConfiguration, TimeSource time) {
    this.bucket = bucket;
    this.myConfiguration = myConfiguration;
    this.time = time;
    long longAgo = time.nanoTime() - 2 * MINUTE;
    this.lastDisagreementWarn = new AtomicLong(longAgo);
    this.lastRepairWarn = new AtomicLong(longAgo);
    this.lastNotCountedWarn = new AtomicLong(longAgo);
    this.lastHoldWarn = new AtomicLong(longAgo);
  }

  /** Takes the news of a reply that reached this process at {@code receivedAtNanos}. */
  void observe(BucketReply reply, long receivedAtNanos) {
    BucketReply before = latest;
    if (before == null || before.epoch() != reply.epoch() || before.generation() != reply.generation()
        || before.factor() < reply.factor() || before.configurations() != reply.configurations()) {
      version.incrementAndGet(); // a slot may be sooner (or elsewhere) than a refusal before this said
    }
    long epochBefore = epochs.current();
    epochs.observe(reply.epoch());
    changes.observe(reply.change()); // before the generation: a call that sees the new one finds how its slot moved
    if (epochs.current() != epochBefore && epochs.current() == reply.epoch()) {
      generations.reset(reply.generation()); // a new state: its generations are its own
    } else if (reply.epoch() == epochs.current()) {
      generations.observeNewer(reply.generation()); // a late reply of an older generation does not bring it back
    }
    latest = reply;
    holdEndsNanos = receivedAtNanos + Math.max(0, reply.holdUntilMicros() - reply.nowMicros()) * 1000;
    if (reply.configurations() > 1) {
      disagreement(reply);
    }
    if (!reply.repaired().isEmpty()) {
      repaired(reply.repaired());
    }
  }

  /**
   * How many times this process heard something that can bring a bucket's next free slot sooner than its last
   * refusal said: a newer state or rate generation, a higher rate factor, another count of live configurations
   * ({@link RefusalMemory}).
   */
  long version() {
    return version.get();
  }

  /** A new rate generation heard of on the bucket's channel, not in a reply: as {@link #observe} counts one. */
  void generationHeard(long generation) {
    if (generation > generations.current()) {
      version.incrementAndGet();
    }
    generations.observeNewer(generation);
  }

  double rateFactor() {
    BucketReply reply = latest;
    return reply == null ? 1 : reply.factor();
  }

  int configurations() {
    BucketReply reply = latest;
    return reply == null ? 1 : reply.configurations();
  }

  /**
   * The refill per second in force, as the latest reply told it (NaN before any): computed here, when read, not at
   * every call, and only again once another configuration or another factor has been heard of.
   */
  double ratePerSecond() {
    BucketReply reply = latest;
    if (reply == null) {
      return Double.NaN;
    }
    Rate known = rate;
    if (known == null || known.factor != reply.factor() || !known.others.equals(reply.others())) {
      known = new Rate(reply.others(), reply.factor(), reply.ratePerSecond(myConfiguration));
      rate = known;
    }
    return known.perSecond;
  }

  private record Rate(String others, double factor, double perSecond) {}

  /** What is left of the provider's hold, as this process last heard: zero when none. */
  Duration holdLeft() {
    long left = holdEndsNanos - time.nanoTime();
    return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
  }

  long repairs() {
    return repairs.sum();
  }

  long notCounted() {
    return notCounted.sum();
  }

  /** Replicas run other limits on this bucket: naming every configuration. */
  private void disagreement(BucketReply reply) {
    if (due(lastDisagreementWarn)) {
      LOG.warn("Bucket '{}': replicas use {} configurations (capacity:refill per second, per limit): {} (this "
          + "process), {}; every limit of each is enforced until a configuration goes unused for its lease (see "
          + "bacen.throttle.configurations)", bucket, reply.configurations(), myConfiguration,
          reply.others().replace(";", ", "));
    }
  }

  /** The script found fields it could not trust in the bucket's hash and reset them. */
  private void repaired(List<String> fields) {
    repairs.increment();
    if (due(lastRepairWarn)) {
      LOG.warn("Bucket '{}': its state in Redis held values that cannot be right ({}: written by hand, by a bug, "
          + "or a Redis clock that went back) and were reset; calls go on (see bacen.throttle.state.repaired)",
          bucket, String.join(", ", fields));
    }
  }

  /** A 429 this process reported did not count: it made the last cut, and other replicas asked since. */
  void notCountedRefusal() {
    notCounted.increment();
    if (due(lastNotCountedWarn)) {
      LOG.warn("Bucket '{}': this replica's 429s do not cut the fleet's rate now: it made the last cut, and other "
          + "replicas have asked for slots since without a 429 to report. A gateway or proxy on this replica's way "
          + "to the provider? (see bacen.throttle.provider.refused{counted=no})", bucket);
    }
  }

  /** A refusal asked for a longer hold than one refusal may impose. */
  void holdCapped(Duration asked, Duration cap) {
    if (due(lastHoldWarn)) {
      LOG.warn("Bucket '{}': a 429 asked the fleet to wait {} s (Retry-After or RateLimit reset); held {} s "
          + "(maxProviderHold), and longer only while 429s keep coming (see bacen.throttle.provider.hold)", bucket,
          asked.toSeconds(), cap.toSeconds());
    }
  }

  private boolean due(AtomicLong last) {
    long now = time.nanoTime();
    long before = last.get();
    return now - before > MINUTE && last.compareAndSet(before, now);
  }

  /**
   * A slot booked under an older rate generation of the current state, at the rate in force: moved through every
   * change since ({@link GenerationChanges#moved}); -1 when this process missed one, or the slot had come by then.
   */
  long moved(StepStamp stamp, long slotMicros) {
    if (stamp.epoch() != epochs.current()) {
      return -1;
    }
    return changes.moved(stamp.generation(), generations.current(), slotMicros);
  }

  /** Whether a slot stamped {@code stamp} may still be left on, from the replies this process has seen. */
  TokenBucket.Validity validity(StepStamp stamp) {
    if (epochs.isDead(stamp.epoch())) {
      return TokenBucket.Validity.STATE_LOST;
    }
    return generations.isDead(stamp.generation()) ? TokenBucket.Validity.RATE_CUT : TokenBucket.Validity.VALID;
  }
}
