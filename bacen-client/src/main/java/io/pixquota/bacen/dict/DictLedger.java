package io.pixquota.bacen.dict;

import io.pixquota.throttle.store.BucketGroup.Credit;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Take;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What this process owes the mirror and has not sent yet, and what it has in flight. An answer's refunds, its
 * calibrations and its credit ride on the next lookup's round trip (or on a flush of their own after the flush delay),
 * so a lookup costs one round trip. Pending gives are merged per bucket, refunds first and the lowest calibration
 * after: the merge can only leave the mirror lower than the gives in their order would (safe), and keeps the ledger
 * as small as the buckets touched. A batch whose round trip fails keeps only its calibrations ({@link #failed}).
 * Credits beyond {@link #MAX_CREDITS} waiting are dropped, oldest first, and counted. Either way the mirror stays
 * lower than it could, never higher. Earnings of standing are summed per payer, and a failed batch keeps only its
 * losses: standing may stay lower than earned, never higher. Threadsafe.
 */
final class DictLedger {
  static final int MAX_CREDITS = 10_000;
  /** The most buckets one round trip carries gives for; the rest wait for the next. */
  static final int MAX_BUCKETS_PER_TRIP = 64;

  private static final class Owed {
    final GroupBucket bucket;
    double refund;
    double lowerTo = Double.POSITIVE_INFINITY;
    double earn;

    Owed(GroupBucket bucket) {
      this.bucket = bucket;
    }
  }

  /** Gives and credits to send in one round trip. */
  record Batch(List<Give> gives, List<Credit> credits) {
    static final Batch EMPTY = new Batch(List.of(), List.of());

    boolean isEmpty() {
      return gives.isEmpty() && credits.isEmpty();
    }
  }

  private final Map<String, Owed> owed = new LinkedHashMap<>();
  private final Deque<Credit> credits = new ArrayDeque<>();
  private final Map<String, Double> inFlight = new HashMap<>();
  /** The participant's buckets as the last booking's answer left them. */
  private final Map<String, Seen> seen = new HashMap<>();

  private record Seen(double tokens, long atNanos) {}
  private long creditsDropped;
  private long refundsDropped;

  /** A lookup's takes are booked and its call is about to leave. */
  synchronized void begin(List<Take> takes) {
    for (Take t : takes) {
      inFlight.merge(t.bucket().name(), t.cost(), Double::sum);
      Owed o = owed.get(t.bucket().name());
      if (o != null && o.lowerTo != Double.POSITIVE_INFINITY) {
        o.lowerTo -= t.cost(); // DICT's reading did not count this booking: the owed calibration leaves it booked
      }
    }
  }

  /** A lookup's call is over (answered or not). */
  synchronized void end(List<Take> takes) {
    for (Take t : takes) {
      inFlight.computeIfPresent(t.bucket().name(), (k, v) -> v - t.cost() > 1e-9 ? v - t.cost() : null);
    }
  }

  /** A booking's answer: the participant's buckets (waiting takes) as it left them, at {@code atNanos}. */
  synchronized void seen(List<Take> takes, List<Double> remaining, long atNanos) {
    for (int i = 0; i < takes.size(); i++) {
      if (takes.get(i).waits()) {
        Seen last = seen.get(takes.get(i).bucket().name());
        if (last == null || atNanos - last.atNanos() >= 0) {
          seen.put(takes.get(i).bucket().name(), new Seen(remaining.get(i), atNanos));
        }
      }
    }
  }

  /**
   * What this process believes a bucket holds now: the last booking's answer refilled since (a participant's), or
   * {@code fallback} (an end user's: its own booking), plus the refunds owed to it.
   */
  synchronized double believed(GroupBucket bucket, double fallback, long nowNanos) {
    Seen last = seen.get(bucket.name());
    double base = last == null ? fallback : Math.min(bucket.limit().capacity(),
        last.tokens() + bucket.limit().refillPerSecond() * Math.max(0, nowNanos - last.atNanos()) / 1e9);
    Owed o = owed.get(bucket.name());
    return base + (o == null ? 0 : o.refund);
  }

  /** The standing this process owes a bucket's holder and has not sent (the next round trip carries it). */
  synchronized double owedEarn(String bucket) {
    Owed o = owed.get(bucket);
    return o == null ? 0 : o.earn;
  }

  /** What this process's lookups in flight have booked on a bucket (DICT has not charged them yet). */
  synchronized double inFlight(String bucket) {
    return inFlight.getOrDefault(bucket, 0.0);
  }

  /** Adds an answer's gives and its credit (may be null). */
  synchronized void owe(List<Give> gives, Credit credit) {
    for (Give g : gives) {
      Owed o = owed.computeIfAbsent(g.bucket().name(), k -> new Owed(g.bucket()));
      switch (g.kind()) {
        case REFUND -> o.refund += g.amount();
        case LOWER_TO -> o.lowerTo = Math.min(o.lowerTo, g.amount());
        case EARN -> o.earn += g.amount();
      }
    }
    if (credit != null) {
      credits.addLast(credit);
      while (credits.size() > MAX_CREDITS) {
        credits.removeFirst();
        creditsDropped++;
      }
    }
  }

  /** Takes up to {@link #MAX_BUCKETS_PER_TRIP} buckets' gives and the credits, to send now. */
  synchronized Batch take() {
    if (owed.isEmpty() && credits.isEmpty()) {
      return Batch.EMPTY;
    }
    List<Give> gives = new ArrayList<>();
    List<Give> lowers = new ArrayList<>();
    Iterator<Owed> it = owed.values().iterator();
    for (int n = 0; it.hasNext() && n < MAX_BUCKETS_PER_TRIP; n++) {
      Owed o = it.next();
      it.remove();
      if (o.refund > 0) {
        gives.add(new Give(o.bucket, Give.Kind.REFUND, Math.min(o.refund, o.bucket.limit().capacity())));
      }
      if (o.lowerTo != Double.POSITIVE_INFINITY) {
        lowers.add(new Give(o.bucket, Give.Kind.LOWER_TO, o.lowerTo));
      }
      if (o.earn != 0) {
        gives.add(new Give(o.bucket, Give.Kind.EARN, o.earn));
      }
    }
    gives.addAll(lowers);
    List<Credit> out = new ArrayList<>();
    while (!credits.isEmpty() && out.size() < MAX_BUCKETS_PER_TRIP) {
      out.add(credits.removeFirst());
    }
    return new Batch(List.copyOf(gives), List.copyOf(out));
  }

  /**
   * A batch whose round trip failed. Redis may have applied it all the same (a timeout after the command left: it
   * runs once Redis answers again), so only what is harmless twice is owed again: its calibrations (a lowering
   * applied twice lowers once). Its refunds and credits are dropped and counted: given twice, they would leave the
   * mirror above DICT; dropped, it is lower until its buckets refill.
   */
  synchronized void failed(Batch batch) {
    for (Give g : batch.gives()) {
      if (g.kind() == Give.Kind.LOWER_TO || (g.kind() == Give.Kind.EARN && g.amount() < 0)) {
        owe(List.of(g), null); // applied twice, it only lowers more: safe
      } else if (g.kind() == Give.Kind.REFUND) {
        refundsDropped++;
      }
    }
    creditsDropped += batch.credits().size();
  }

  /** The credit remembered under {@code id}, if it has not left this process yet: taken out (so it is given once). */
  synchronized Credit takeCredit(String id) {
    for (Iterator<Credit> it = credits.iterator(); it.hasNext(); ) {
      Credit c = it.next();
      if (c.id().equals(id)) {
        it.remove();
        return c;
      }
    }
    return null;
  }

  synchronized boolean isEmpty() {
    return owed.isEmpty() && credits.isEmpty();
  }

  /** Credits dropped: too many waited, or their round trip failed ({@code bacen.dict.credits{outcome=dropped}}). */
  synchronized long creditsDropped() {
    return creditsDropped;
  }

  /** Refunds dropped because their round trip failed ({@code bacen.dict.refunds.dropped}). */
  synchronized long refundsDropped() {
    return refundsDropped;
  }
}
