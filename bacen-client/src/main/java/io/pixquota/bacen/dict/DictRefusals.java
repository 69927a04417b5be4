package io.pixquota.bacen.dict;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this process learned from the mirror's answers that lets it refuse a lookup without asking again: an end
 * user's bucket that refuses until a known time, a participant bucket that has no slot before a known time, a
 * reserve that refuses payers without standing (or lookups marked RISKY) until the bucket could have refilled above
 * it, and the standing of payers it has seen. Every window ends when the bucket could hold the lookup again by its
 * refill alone; refunds and credits from elsewhere may make that sooner, so a stale view refuses more, never admits
 * more. A payer this process has not seen, refused by a reserve window, asks the store on its next lookup (at most
 * {@link #PROBES_PER_SECOND} such probes a second): a scanner that takes a new id for every lookup never asks twice,
 * a returning customer does. Threadsafe.
 */
final class DictRefusals {
  /** Payers remembered, for each kind of memory. */
  static final int PAYERS = 100_000;
  static final int PROBES_PER_SECOND = 10;

  /** A lookup this process decides alone: refused now, or (a batch lookup) asked again after {@code retryNanos}. */
  record Local(DictException refusal, long retryNanos, String reason) {}

  private final TimeSource time;
  private final Cache<String, Long> userUntil = Caffeine.newBuilder().maximumSize(PAYERS).build();
  private final Cache<String, Long> standing;
  /** A credit this process made: its payer and the standing it earns when its payment settles. */
  private final Cache<String, Earning> credits;
  private final Cache<String, Boolean> refusedOnce = Caffeine.newBuilder().maximumSize(PAYERS)
      .expireAfterWrite(10, TimeUnit.MINUTES).build();
  /** "NORMAL|bucket" or "RISKY|bucket": until when the reserve refuses that trust without standing. */
  private final Map<String, Long> reserveUntil = new ConcurrentHashMap<>();
  /** A participant bucket: when it holds a lookup's need again, by its refill alone. */
  private final Map<String, Long> readyAt = new ConcurrentHashMap<>();
  private final AtomicLong nextProbe = new AtomicLong(Long.MIN_VALUE);

  private record Earning(String payer, double amount) {}

  DictRefusals(TimeSource time, Duration standingTtl, Duration creditTtl) {
    this.time = time;
    this.standing = Caffeine.newBuilder().maximumSize(PAYERS).expireAfterWrite(standingTtl).build();
    this.credits = Caffeine.newBuilder().maximumSize(PAYERS).expireAfterWrite(creditTtl).build();
  }

  /** A refusal this process can make alone, or null: ask the mirror. */
  Local check(DictLookups.Prepared p, Duration maxWait, boolean batch) {
    long now = time.nanoTime();
    String payer = p.payer().bucket();
    DictBuckets.Plan plan = p.plan();
    for (int i = 0; i < plan.takes().size(); i++) {
      Take t = plan.takes().get(i);
      DictPolicy policy = plan.policies().get(i);
      if (!t.waits()) {
        Long until = userUntil.getIfPresent(payer);
        if (until != null && until - now > 0) {
          return new Local(new DictUserRefusedException(policy.name(), Duration.ofNanos(until - now)), 0, "user");
        }
        continue;
      }
      Long ready = readyAt.get(t.bucket().name());
      if (ready != null && ready - now > maxWait.toNanos()) {
        return batch ? new Local(null, ready - now, "participant") : new Local(new DictThrottledException("the "
            + "participant's " + policy.name() + " bucket has no slot within maxWait " + maxWait.toMillis()
            + " ms (the next is " + Duration.ofNanos(ready - now).toMillis() + " ms ahead, known from an earlier "
            + "answer); not sent", null), 0, "participant");
      }
      Local reserve = reserve(p, t, policy, now);
      if (reserve != null) {
        return batch ? new Local(null, ((DictReserveRefusedException) reserve.refusal()).retryAfter().toNanos(),
            reserve.reason()) : reserve;
      }
    }
    return null;
  }

  private Local reserve(DictLookups.Prepared p, Take t, DictPolicy policy, long now) {
    DictLookup.Trust trust = p.plan().trust();
    if (t.reserve() <= 0 || trust == DictLookup.Trust.TRUSTED) {
      return null;
    }
    long until = reserveUntil.getOrDefault("NORMAL|" + t.bucket().name(), now);
    if (trust == DictLookup.Trust.RISKY) {
      until = Math.max(until, reserveUntil.getOrDefault("RISKY|" + t.bucket().name(), now));
    }
    if (until - now <= 0) {
      return null;
    }
    String payer = p.payer().bucket();
    DictReserveRefusedException.Reason reason = DictReserveRefusedException.Reason.NO_STANDING;
    if (trust == DictLookup.Trust.RISKY) {
      reason = DictReserveRefusedException.Reason.RISKY;
    } else {
      Long known = standing.getIfPresent(payer);
      if (known != null && known >= p.plan().price()) {
        return null;
      }
      if (known == null && refusedOnce.getIfPresent(payer) != null && probe(now)) {
        refusedOnce.invalidate(payer);
        return null;
      }
      if (known == null) {
        refusedOnce.put(payer, Boolean.TRUE);
      }
    }
    return new Local(new DictReserveRefusedException(policy.name(), reason, Duration.ofNanos(until - now), true), 0,
        "reserve");
  }

  private boolean probe(long now) {
    long next = nextProbe.get();
    return (next == Long.MIN_VALUE || now - next >= 0)
        && nextProbe.compareAndSet(next, now + TimeUnit.SECONDS.toNanos(1) / PROBES_PER_SECOND);
  }

  /** Learns from the mirror's answer to a lookup's booking. */
  void learn(DictLookups.Prepared p, Acquired a, Duration maxWait) {
    String payer = p.payer().bucket();
    if (!Double.isNaN(a.standing())) {
      if (a.standing() >= 1) {
        standing.put(payer, (long) a.standing());
      } else {
        standing.invalidate(payer); // a payer without standing is not remembered: a scanner's ids would fill it
      }
    }
    if (a.granted()) {
      return;
    }
    long at = a.answeredAtNanos();
    if (a.refusedBy() != null && a.byReserve()) {
      String key = (p.plan().trust() == DictLookup.Trust.RISKY ? "RISKY|" : "NORMAL|") + a.refusedBy().name();
      reserveUntil.merge(key, at + a.retryAfter().toNanos(), Math::max);
    } else if (a.refusedBy() != null) {
      userUntil.put(payer, at + a.retryAfter().toNanos());
    } else {
      for (int i = 0; i < p.plan().takes().size(); i++) {
        Take t = p.plan().takes().get(i);
        double missing = t.need() - a.remaining().get(i);
        if (t.waits() && missing > 0) {
          long ready = at + (long) Math.ceil(missing / t.bucket().limit().refillPerSecond() * 1e9);
          if (ready - at > maxWait.toNanos()) {
            readyAt.merge(t.bucket().name(), ready, Math::max);
          }
        }
      }
    }
  }

  /** The payer's standing changed by {@code amount} through this process (an answer's earning, sent later). */
  void earned(DictLookups.Prepared p, double amount) {
    earned(p.payer().bucket(), amount);
  }

  private void earned(String payer, double amount) {
    // a payer not remembered has no standing this process knows of: what it earns now is a lower bound of it
    standing.asMap().compute(payer, (k, s) -> {
      long next = Math.max(0, (s == null ? 0 : s) + (long) amount);
      return next >= 1 ? next : null;
    });
  }

  /** A credit of this process's that will earn its payer {@code amount} when its payment settles. */
  void credit(String endToEndId, DictLookups.Prepared p, double amount) {
    credits.put(endToEndId, new Earning(p.payer().bucket(), amount));
  }

  /** A payment settled and its credit was given: its payer earned standing, if this process made the credit. */
  void settled(String endToEndId) {
    Earning e = credits.getIfPresent(endToEndId);
    if (e != null) {
      credits.invalidate(endToEndId);
      earned(e.payer(), e.amount());
    }
  }
}
