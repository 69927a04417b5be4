package io.pixquota.throttle.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bucket_group.lua}'s step in Java, operation for operation: several token buckets of one limit each, decided
 * together. A bucket absent from the store is full; one that is full again is deleted (its key would expire then),
 * unless it holds standing, which keeps it for the standing ttl. Stored values that cannot be trusted (not a number,
 * beyond capacity, a time far ahead) are reset and counted. The local group runs on it; a differential test runs it
 * against the script.
 */
public final class GroupStep {
  /** How far a stored time may be ahead of the store's clock before it is not believed: 1 s. */
  static final long SLACK_MICROS = 1_000_000;

  /**
   * One bucket's part in a step: its limit, the cost taken once the bucket holds {@code need}, whether a shortage is
   * waited for, the reserve it must keep after its need unless the step's standing covers it.
   */
  public record Part(String name, double capacity, double refill, double cost, double need, boolean waits,
      double reserve) {
    public Part(String name, double capacity, double refill, double cost, double need, boolean waits) {
      this(name, capacity, refill, cost, need, waits, 0);
    }
  }

  /** What a gift does: add tokens (within capacity), lower them to at most its amount, add to the standing. */
  public enum GiftKind { REFUND, LOWER, EARN }

  /** One give to a named bucket. */
  public record Gift(String name, GiftKind kind, double amount) {}

  /**
   * A stored bucket: its tokens, when they were counted, its key's expiry (store millis; gone after it), its
   * standing.
   */
  public record Stored(double tokens, long updatedMicros, long expiresAtMillis, long standing) {
    public Stored(double tokens, long updatedMicros, long expiresAtMillis) {
      this(tokens, updatedMicros, expiresAtMillis, 0);
    }
  }

  /**
   * A credit's change to one bucket, as remembered: the bucket's limit, the amount, and whether it earns standing
   * (else it refunds tokens).
   */
  public record Refund(String name, double capacity, double refill, double amount, boolean earns) {}

  /** A remembered credit's refunds, and when it expires (store millis). */
  public record Remembered(List<Refund> refunds, long expiresAtMillis) {}

  /** A credit to remember: its id, its refunds, for how long. */
  public record Memo(String id, List<Refund> refunds, long ttlMillis) {}

  /**
   * The step's standing: the part that holds it (1-based), and the price a use of a reserve spends (0: it only reads
   * the standing).
   */
  public record StandingRule(int holder, long price) {}

  /** The store: buckets and credits by name, as the Redis keys hold them. Not threadsafe. */
  public static final class Store {
    final Map<String, Stored> buckets = new HashMap<>();
    final Map<String, Remembered> credits = new HashMap<>();

    /** Writes a bucket as anyone with access to the store could: for tests of distrust. */
    public void put(String name, Stored value) {
      buckets.put(name, value);
    }

    /** What a bucket holds now (null: absent, or expired). */
    public Stored get(String name, long nowMicros) {
      Stored s = buckets.get(name);
      if (s != null && Math.floorDiv(nowMicros, 1000) > s.expiresAtMillis()) {
        buckets.remove(name);
        return null;
      }
      return s;
    }

    public int size() {
      return buckets.size();
    }

    /** Writes a credit as anyone with access to the store could: for tests of distrust. */
    public void putCredit(String id, Remembered value) {
      credits.put(id, value);
    }

    /** A remembered credit now (null: absent, spent or expired). */
    public Remembered credit(String id, long nowMicros) {
      Remembered r = credits.get(id);
      if (r != null && Math.floorDiv(nowMicros, 1000) > r.expiresAtMillis()) {
        credits.remove(id);
        return null;
      }
      return r;
    }
  }

  /**
   * A step's answer: {@code granted}; the wait (a refused booking: the wait it would have needed); the first refusing
   * part (1-based; 0 none), whether its reserve refused it, and when every refusing part will have what it needs;
   * each part's tokens after; repairs made; whether a reserve was used on the standing, and the holder's standing
   * after (-1 without a standing rule).
   */
  public record Reply(boolean granted, long waitMicros, int refusedBy, long retryMicros, long nowMicros,
      List<Double> remaining, int repaired, boolean byReserve, boolean waived, long standing) {}

  private GroupStep() {}

  /** {@link #step(Store, List, long, List, List, StandingRule, long, long)} without a standing rule. */
  public static Reply step(Store store, List<Part> parts, long maxWaitMicros, List<Gift> gifts, List<Memo> memos,
      long nowMicros) {
    return step(store, parts, maxWaitMicros, gifts, memos, null, 0, nowMicros);
  }

  /**
   * Applies {@code gifts} (to parts of cost 0 or not), then books every part or none; remembers the memos. A part
   * whose bucket would keep less than its reserve after its need refuses at once, unless {@code standing}'s holder
   * holds at least its price: then the price is spent (once, when granted).
   *
   * @param standing       null: no one may use a reserve
   * @param standingMillis how long a bucket that holds standing is kept after this write
   */
  public static Reply step(Store store, List<Part> parts, long maxWaitMicros, List<Gift> gifts, List<Memo> memos,
      StandingRule standing, long standingMillis, long nowMicros) {
    int repaired = 0;
    double[] tokens = new double[parts.size()];
    long[] standings = new long[parts.size()];
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
      Stored s = store.get(p.name(), nowMicros);
      if (s == null) {
        tokens[i] = p.capacity();
        continue;
      }
      double t = s.tokens();
      long updated = s.updatedMicros();
      if (!(t == t) || Double.isInfinite(t) || t > p.capacity()
          || t < -(p.capacity() * (p.capacity() + p.refill() * 86_400) + p.refill() * 90_000)) {
        repaired++;
        t = p.capacity(); // not a count this bucket could hold (nor owe): as if it had expired full
      }
      if (updated > nowMicros + SLACK_MICROS) {
        repaired++;
        updated = nowMicros; // a clock that went back: no refill across it
      }
      standings[i] = s.standing();
      if (standings[i] < 0 || standings[i] > p.capacity()) {
        repaired++;
        standings[i] = 0;
      }
      tokens[i] = Math.min(p.capacity(), t + p.refill() * (double) Math.max(0, nowMicros - updated) / 1000000);
    }
    for (Gift g : gifts) {
      for (int i = 0; i < parts.size(); i++) {
        Part p = parts.get(i);
        if (p.name().equals(g.name())) {
          switch (g.kind()) {
            case LOWER -> tokens[i] = Math.min(tokens[i], g.amount());
            case REFUND -> tokens[i] = Math.min(p.capacity(), tokens[i] + g.amount());
            case EARN -> standings[i] = (long) Math.max(0, Math.min(Math.floor(p.capacity()),
                standings[i] + g.amount()));
          }
        }
      }
    }
    boolean mayWaive = standing != null && standing.price() > 0
        && standings[standing.holder() - 1] >= standing.price();
    boolean waived = false;
    double wait = 0;
    double retry = 0;
    int refusedBy = 0;
    boolean byReserve = false;
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
      if (p.cost() > 0 && p.reserve() > 0 && tokens[i] < p.reserve() + p.need()) {
        if (mayWaive) {
          waived = true;
        } else {
          if (refusedBy == 0) {
            refusedBy = i + 1;
            byReserve = true;
          }
          retry = Math.max(retry, Math.ceil((p.reserve() + p.need() - tokens[i]) / p.refill() * 1000000));
          continue;
        }
      }
      if (p.cost() > 0 && tokens[i] < p.need()) {
        double w = Math.ceil((p.need() - tokens[i]) / p.refill() * 1000000);
        if (!p.waits()) {
          if (refusedBy == 0) {
            refusedBy = i + 1;
          }
          retry = Math.max(retry, w);
        } else {
          wait = Math.max(wait, w);
        }
      }
    }
    boolean granted = refusedBy == 0 && wait <= maxWaitMicros;
    waived = granted && waived;
    if (waived) {
      standings[standing.holder() - 1] -= standing.price();
    }
    boolean writes = granted || !gifts.isEmpty() || repaired > 0; // a plain refusal changes nothing
    List<Double> remaining = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
      if (granted) {
        tokens[i] = tokens[i] - p.cost();
      }
      remaining.add(tokens[i]);
      if (writes) {
        write(store, p, tokens[i], standings[i], standingMillis, nowMicros);
      }
    }
    for (Memo m : memos) { // they ride on the round trip, whatever its decision
      store.credits.put(m.id(), new Remembered(List.copyOf(m.refunds()),
          Math.floorDiv(nowMicros, 1000) + m.ttlMillis()));
    }
    return new Reply(granted, (long) wait, refusedBy, (long) retry, nowMicros, remaining, repaired,
        byReserve && refusedBy > 0, waived, standing == null ? -1 : standings[standing.holder() - 1]);
  }

  /**
   * A credit's refunds, once: true when it was there (and is now spent). Each refund gives at most {@code maxRefund}
   * tokens; an earning adds within its bucket's capacity; one whose limit is not a bucket's (capacity or refill not
   * above zero) gives nothing.
   */
  public static boolean redeem(Store store, String creditId, double maxRefund, long standingMillis,
      long nowMicros) {
    Remembered r = store.credits.remove(creditId);
    if (r == null || Math.floorDiv(nowMicros, 1000) > r.expiresAtMillis()) {
      return false;
    }
    for (Refund f : r.refunds()) { // one after the other: a bucket may be refunded and earn both
      if (f.capacity() > 0 && f.refill() > 0 && (f.earns() ? f.amount() == Math.rint(f.amount()) : f.amount() >= 0)) {
        Gift gift = f.earns() ? new Gift(f.name(), GiftKind.EARN, Math.max(-f.capacity(), Math.min(f.capacity(),
            f.amount()))) : new Gift(f.name(), GiftKind.REFUND, Math.min(f.amount(), maxRefund));
        step(store, List.of(new Part(f.name(), f.capacity(), f.refill(), 0, 0, true)), 0, List.of(gift), List.of(),
            null, standingMillis, nowMicros);
      }
    }
    return true;
  }

  /**
   * Writes a bucket: deleted once full without standing (it is full when absent), else kept until it would be full
   * again, and for at least {@code standingMillis} while it holds standing.
   */
  private static void write(Store store, Part p, double tokens, long standing, long standingMillis,
      long nowMicros) {
    if (tokens >= p.capacity() && standing <= 0) {
      store.buckets.remove(p.name());
      return;
    }
    long ttlMillis = tokens >= p.capacity() ? 0 : (long) Math.ceil((p.capacity() - tokens) / p.refill() * 1000) + 1;
    if (standing > 0) {
      ttlMillis = Math.max(ttlMillis, standingMillis);
    }
    store.buckets.put(p.name(), new Stored(Math.min(tokens, p.capacity()), nowMicros,
        Math.floorDiv(nowMicros, 1000) + ttlMillis, standing));
  }
}
