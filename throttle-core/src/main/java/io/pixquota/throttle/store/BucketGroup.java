package io.pixquota.throttle.store;

import io.pixquota.throttle.support.Checks;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Token buckets decided together, in one round trip to their store: a call that needs several (a DICT lookup: the
 * end user's anti-scan bucket and the participant's buckets) books every one of them or none. A bucket exists on
 * demand, full, sized by the {@link GroupBucket} that names it, and leaves nothing behind once it is full again (a
 * million end users touched once cost nothing an hour later).
 *
 * <p>Each {@link Take} says whether its bucket's shortage may be waited for ({@link Take#waits()}: the slot is booked
 * ahead, as a {@link TokenBucket} does) or refuses at once ({@link Acquired#retryAfter()} says when the bucket will
 * have room: a person typing a key must not wait minutes for an end user's refill). {@link Give}s ride on the same
 * round trip: refunds (after an answer that cost less than was booked), calibrations (lower a bucket to what the
 * provider says remains, never raise it). A {@link Credit} is remembered with a booking's gives, to be
 * {@link #redeem redeemed} once, by any process, when the call's outcome earns it (a settled payment).
 *
 * <p>A take may keep a <b>reserve</b> ({@link Take#reserve()}): tokens its bucket must keep for callers of standing.
 * A bucket's <b>standing</b> is a count kept with it (an end user's history: found keys, settled payments), earned
 * and lost by {@link Give.Kind#EARN} gives; an acquisition that names a {@link Standing} may use the reserves when its
 * holder's standing covers the standing's price, and spends that price doing so. A key that holds standing lives
 * for the group's standing ttl after it was last written, even when its bucket is full.
 *
 * <p>Implemented by {@link LocalBucketGroup} (in memory) and, in pixquota-redis, by {@code RedisBucketGroup}.
 * Implementations are threadsafe.
 */
public interface BucketGroup {
  /** How long a bucket's standing is kept after the bucket was last written, by default: 30 days. */
  Duration DEFAULT_STANDING_TTL = Duration.ofDays(30);

  /** The group's name: the scope of its buckets' names, and of its credits. */
  String name();

  /**
   * Applies {@code gives}, then books every take or none: granted when every waiting take's slot is within
   * {@code maxWait} and every non-waiting take's bucket holds its need now. A refusal books nothing (the gives still
   * apply, and the credits are remembered: they ride on this round trip, whatever its decision).
   *
   * @param credits remembered for a later {@link #redeem}
   * @throws IllegalArgumentException   for bad input, before any I/O
   * @throws StoreUnavailableException when the store does not answer in time or fails
   */
  Acquired acquire(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits)
      throws StoreUnavailableException, InterruptedException;

  /**
   * {@link #acquire(List, Duration, List, List)} where a take's reserve may be used by {@code standing}'s holder
   * (null: by no one). A take whose bucket would keep less than its reserve plus its need refuses the whole step at
   * once (never waits into a reserve), unless the holder's standing covers the price: then the price is spent (once
   * per step, only when the step is granted) and the take is decided as if it had no reserve. The default supports
   * neither reserves nor standing.
   *
   * @throws UnsupportedOperationException when a take has a reserve or a standing is given, and this group keeps
   *                                       none
   */
  default Acquired acquire(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits,
      Standing standing) throws StoreUnavailableException, InterruptedException {
    BucketGroups.checkNoReserves(this, takes, gives, standing);
    return acquire(takes, maxWait, gives, credits);
  }

  /** {@link #acquire(List, Duration, List, List, Standing)} without blocking a thread on the store's answer. */
  default CompletionStage<Acquired> acquireAsync(List<Take> takes, Duration maxWait, List<Give> gives,
      List<Credit> credits, Standing standing) {
    BucketGroups.checkNoReserves(this, takes, gives, standing);
    return acquireAsync(takes, maxWait, gives, credits);
  }

  /**
   * {@link #acquire} without blocking a thread on the store's answer. The default answers on the calling thread.
   *
   * @throws IllegalArgumentException for bad input, before any I/O
   */
  default CompletionStage<Acquired> acquireAsync(List<Take> takes, Duration maxWait, List<Give> gives,
      List<Credit> credits) {
    try {
      return CompletableFuture.completedFuture(acquire(takes, maxWait, gives, credits));
    } catch (StoreUnavailableException e) {
      return CompletableFuture.failedFuture(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Applies gives (and remembers credits) on their own, one round trip. */
  void give(List<Give> gives, List<Credit> credits) throws StoreUnavailableException, InterruptedException;

  /**
   * Gives a remembered credit's tokens back, once: the first call anywhere gets true, every later one false (as does
   * an unknown or expired id). A credit is read back from the store, so it is not trusted: each of its refunds gives
   * at most {@code maxRefund} (and nothing when it does not parse).
   *
   * @param maxRefund the most one refund of a credit may give, {@code >= 0}
   */
  boolean redeem(String creditId, double maxRefund) throws StoreUnavailableException, InterruptedException;

  /**
   * One bucket of the group: its name within the group (an end user's pseudonym, a policy) and its one limit.
   *
   * @param name 1 to 64 letters, digits, '.', '_', ':' or '-'
   */
  record GroupBucket(String name, Limit limit) {
    public GroupBucket {
      Checks.keyName("bucket name", name);
      if (limit == null) {
        throw new NullPointerException("limit cannot be null");
      }
    }
  }

  /**
   * What a call takes from one bucket: {@code cost} tokens, once the bucket holds {@code need} (a provider that
   * admits a call at 1 token and charges its answer's cost after, into debt, as DICT does, has {@code need} 1 and a
   * worst-case {@code cost} above it; a classic bucket has {@code need == cost}).
   *
   * @param cost    {@code 0 <= cost <= capacity}; 0 to touch a bucket only for a give
   * @param need    {@code 0 <= need <= cost}: the tokens the bucket must hold for the take
   * @param waits   whether a shortage is waited for (a slot booked ahead) or refuses at once
   * @param reserve {@code 0 <= reserve <= capacity}: tokens the bucket must keep after this take's need, unless the
   *                acquisition's {@link Standing} covers it; a shortage of reserve refuses at once
   */
  record Take(GroupBucket bucket, double cost, double need, boolean waits, double reserve) {
    public Take {
      if (bucket == null) {
        throw new NullPointerException("bucket cannot be null");
      }
      if (!(cost >= 0) || cost > bucket.limit().capacity() || Double.isInfinite(cost)) {
        throw new IllegalArgumentException("cost must be within 0..capacity " + bucket.limit().capacity()
            + " of bucket '" + bucket.name() + "', but was " + cost);
      }
      if (!(need >= 0) || need > cost) {
        throw new IllegalArgumentException("need must be within 0..cost " + cost + " of bucket '" + bucket.name()
            + "', but was " + need);
      }
      if (!(reserve >= 0) || reserve > bucket.limit().capacity()) {
        throw new IllegalArgumentException("reserve must be within 0..capacity " + bucket.limit().capacity()
            + " of bucket '" + bucket.name() + "', but was " + reserve);
      }
    }

    /** A take without a reserve. */
    public Take(GroupBucket bucket, double cost, double need, boolean waits) {
      this(bucket, cost, need, waits, 0);
    }

    /** A take that needs what it costs. */
    public Take(GroupBucket bucket, double cost, boolean waits) {
      this(bucket, cost, cost, waits);
    }
  }

  /**
   * A change to one bucket: {@code REFUND} adds tokens (never beyond its capacity), {@code LOWER_TO} sets them to at
   * most {@code amount} (never raises them), {@code EARN} adds {@code amount} (a whole number, negative to take away)
   * to the bucket's standing, kept within 0..capacity.
   */
  record Give(GroupBucket bucket, Kind kind, double amount) {
    /** What a give does. */
    public enum Kind { REFUND, LOWER_TO, EARN }

    public Give {
      if (bucket == null || kind == null) {
        throw new NullPointerException("bucket and kind cannot be null");
      }
      if (!Double.isFinite(amount) || (kind == Kind.REFUND && amount < 0)
          || (kind == Kind.EARN && (amount != Math.rint(amount) || Math.abs(amount) > 1e9))) {
        throw new IllegalArgumentException(kind + " of bucket '" + bucket.name() + "' must be "
            + (kind == Kind.REFUND ? "finite and >= 0" : kind == Kind.EARN ? "a whole number within -1e9..1e9"
            : "finite") + ", but was " + amount);
      }
    }
  }

  /**
   * Who may use the takes' reserves: the standing kept with {@code holder}'s bucket, when it is at least
   * {@code price}, which the step spends. With price 0 the holder's standing is only read (and answered in
   * {@link Acquired#standing()}): it uses no reserve.
   *
   * @param price a whole number within 0..the holder's capacity
   */
  record Standing(GroupBucket holder, double price) {
    public Standing {
      if (holder == null) {
        throw new NullPointerException("holder cannot be null");
      }
      if (price != Math.rint(price) || price < 0 || price > holder.limit().capacity()) {
        throw new IllegalArgumentException("standing price must be a whole number within 0..capacity "
            + holder.limit().capacity() + " of bucket '" + holder.name() + "', but was " + price);
      }
    }
  }

  /**
   * Refunds to make later, once, under an id (a payment's end-to-end id), kept for {@code ttl}.
   *
   * @param id 1 to 64 letters, digits, '.', '_', ':' or '-'
   */
  record Credit(String id, List<Give> gives, Duration ttl) {
    public Credit {
      Checks.keyName("credit id", id);
      gives = List.copyOf(gives);
      if (ttl == null || ttl.isNegative() || ttl.isZero() || ttl.compareTo(Duration.ofDays(7)) > 0) {
        throw new IllegalArgumentException("credit ttl must be within (0, 7 days], but was " + ttl);
      }
      for (Give g : gives) {
        if (g.kind() == Give.Kind.LOWER_TO) {
          throw new IllegalArgumentException("a credit refunds or earns, but was given " + g.kind());
        }
      }
    }
  }

  /**
   * The group's answer.
   *
   * @param granted         whether every take was booked
   * @param waitTime        the wait until the booked slot (granted), or the wait a refused booking would have needed
   * @param refusedBy       the non-waiting take's bucket that had too few tokens; null when none did
   * @param retryAfter      when {@code refusedBy} will have its cost; zero when none refused
   * @param remaining       each take's bucket's tokens after the decision, in the takes' order
   * @param answeredAtNanos when the answer reached this process (the throttle's clock)
   * @param byReserve       whether {@code refusedBy} refused because of its reserve
   * @param waived          whether the step used a reserve on the holder's standing (spent its price)
   * @param standing        the holder's standing after the step; NaN without a {@link Standing}
   */
  record Acquired(boolean granted, Duration waitTime, GroupBucket refusedBy, Duration retryAfter,
      List<Double> remaining, long answeredAtNanos, boolean byReserve, boolean waived, double standing) {
    public Acquired {
      remaining = List.copyOf(remaining);
    }

    /** An answer without reserves or standing. */
    public Acquired(boolean granted, Duration waitTime, GroupBucket refusedBy, Duration retryAfter,
        List<Double> remaining, long answeredAtNanos) {
      this(granted, waitTime, refusedBy, retryAfter, remaining, answeredAtNanos, false, false, Double.NaN);
    }
  }
}
