package io.pixquota.bacen.dict;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One lookup's buckets (its end user's anti-scan bucket and the participant's, one {@code BucketGroup} step in the
 * mirror) as the bucket its request books on through the {@code Throttle} ({@code ThrottleRequest.withBucket}): the
 * throttle waits, asks again, cancels and refuses as it does for API Pix; what is DICT's (a refusal known without a
 * round trip, a reserve, the answer read as a typed refusal) is decided here and in {@link DictLookups}. Made per
 * lookup; its steps happen one after the other.
 */
final class DictLookupBucket implements TokenBucket {
  private static final List<Limit> NONE = List.of(Limit.of(1, 1));
  private final DictLookups.Prepared p;
  private final DictLookups lookups;
  private final DictMirror mirror;
  private final DictLedger ledger;
  private final String name;
  private volatile Acquired booked;
  private volatile boolean sent;

  DictLookupBucket(DictLookups.Prepared p, DictLookups lookups, DictMirror mirror, DictLedger ledger, String name) {
    this.p = p;
    this.lookups = lookups;
    this.mirror = mirror;
    this.ledger = ledger;
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<Limit> limits() {
    return NONE; // the lookup's limits are its policies', decided in the mirror
  }

  @Override
  public Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException, InterruptedException {
    Acquisition known = lookups.known(p);
    return known != null ? known : read(mirror.book(p.plan().takes(), maxWait, p.plan().standing()));
  }

  @Override
  public CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait) {
    Acquisition known;
    try {
      known = lookups.known(p);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (known != null) {
      return CompletableFuture.completedFuture(known);
    }
    return mirror.bookAsync(p.plan().takes(), maxWait, p.plan().standing()).thenApply(this::read);
  }

  private Acquisition read(Acquired a) {
    Acquisition read = lookups.read(p, a);
    if (a.granted()) {
      booked = a;
    }
    return read;
  }

  /** The lookup was cancelled before its send: its takes go back to the mirror on the next round trip. */
  @Override
  public double refund(double cost) {
    List<Give> back = new ArrayList<>();
    for (Take t : p.plan().takes()) {
      back.add(new Give(t.bucket(), Give.Kind.REFUND, t.cost()));
    }
    ledger.owe(back, null);
    mirror.flushSoon();
    return 0;
  }

  /** A lookup has no response costs on the throttle's side: its answer is settled by {@link DictLookups#answer}. */
  @Override
  public double charge(double cost) {
    throw new UnsupportedOperationException("a DICT lookup's costs by answer are settled by the DICT client");
  }

  /** The mirror's answer that booked the lookup's slot (null until one did). */
  Acquired booked() {
    return booked;
  }

  /** The request is leaving for DICT now: from here on DICT may charge it. */
  void sending() {
    sent = true;
    ledger.begin(p.plan().takes());
  }

  /** Whether the request left for DICT. */
  boolean sent() {
    return sent;
  }

  DictLookups.Prepared prepared() {
    return p;
  }

  @Override
  public String toString() {
    return "DictLookupBucket{" + name + "}";
  }
}
