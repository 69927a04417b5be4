package io.pixquota.throttle.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bucket_group.lua}'s step in Java, operation for operation: several token buckets of one limit each, decided
 * together. A bucket absent from the store is full; one that is full again is deleted (its key would expire then).
 * Stored values that cannot be trusted (not a number, beyond capacity, a time far ahead) are reset and counted. The
 * local group runs on it; a differential test runs it against the script.
 */
public final class GroupStep {
  /** How far a stored time may be ahead of the store's clock before it is not believed: 1 s. */
  static final long SLACK_MICROS = 1_000_000;

  /**
   * One bucket's part in a step: its limit, the cost taken once the bucket holds {@code need}, whether a shortage is
   * waited for.
   */
  public record Part(String name, double capacity, double refill, double cost, double need, boolean waits) {}

  /** One give: {@code lower} sets the bucket to at most {@code amount}; else it adds, within capacity. */
  public record Gift(String name, boolean lower, double amount) {}

  /** A stored bucket: its tokens, when they were counted, its key's expiry (store millis; gone after it). */
  public record Stored(double tokens, long updatedMicros, long expiresAtMillis) {}

  /** A remembered credit's refunds (its buckets' limits with them), and when it expires (store millis). */
  public record Remembered(List<Part> refunds, long expiresAtMillis) {}

  /** A credit to remember: its id, its refunds (each part's cost is the amount refunded), for how long. */
  public record Memo(String id, List<Part> refunds, long ttlMillis) {}

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
   * non-waiting part (1-based; 0 none) and when it will have its cost; each part's tokens after; repairs made.
   */
  public record Reply(boolean granted, long waitMicros, int refusedBy, long retryMicros, long nowMicros,
      List<Double> remaining, int repaired) {}

  private GroupStep() {}

  /** Applies {@code gifts} (to parts of cost 0 or not), then books every part or none; remembers the memos. */
  public static Reply step(Store store, List<Part> parts, long maxWaitMicros, List<Gift> gifts, List<Memo> memos,
      long nowMicros) {
    int repaired = 0;
    double[] tokens = new double[parts.size()];
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
      tokens[i] = Math.min(p.capacity(), t + p.refill() * (double) Math.max(0, nowMicros - updated) / 1000000);
    }
    for (Gift g : gifts) {
      for (int i = 0; i < parts.size(); i++) {
        if (parts.get(i).name().equals(g.name())) {
          tokens[i] = g.lower() ? Math.min(tokens[i], g.amount())
              : Math.min(parts.get(i).capacity(), tokens[i] + g.amount());
        }
      }
    }
    double wait = 0;
    double retry = 0;
    int refusedBy = 0;
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
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
    boolean writes = granted || !gifts.isEmpty() || repaired > 0; // a plain refusal changes nothing
    List<Double> remaining = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
      if (granted) {
        tokens[i] = tokens[i] - p.cost();
      }
      remaining.add(tokens[i]);
      if (writes) {
        write(store, p, tokens[i], nowMicros);
      }
    }
    for (Memo m : memos) { // they ride on the round trip, whatever its decision
      store.credits.put(m.id(), new Remembered(List.copyOf(m.refunds()),
          Math.floorDiv(nowMicros, 1000) + m.ttlMillis()));
    }
    return new Reply(granted, (long) wait, refusedBy, (long) retry, nowMicros, remaining, repaired);
  }

  /**
   * A credit's refunds, once: true when it was there (and is now spent). Each refund gives at most {@code maxRefund};
   * one whose limit is not a bucket's (capacity or refill not above zero) gives nothing.
   */
  public static boolean redeem(Store store, String creditId, double maxRefund, long nowMicros) {
    Remembered r = store.credits.remove(creditId);
    if (r == null || Math.floorDiv(nowMicros, 1000) > r.expiresAtMillis()) {
      return false;
    }
    List<Gift> gifts = new ArrayList<>();
    List<Part> touched = new ArrayList<>();
    for (Part p : r.refunds()) {
      if (p.capacity() > 0 && p.refill() > 0 && p.cost() >= 0) {
        touched.add(new Part(p.name(), p.capacity(), p.refill(), 0, 0, true));
        gifts.add(new Gift(p.name(), false, Math.min(p.cost(), maxRefund)));
      }
    }
    step(store, touched, 0, gifts, List.of(), nowMicros);
    return true;
  }

  /** Writes a bucket: deleted once full (it is full when absent), else kept until it would be full again. */
  private static void write(Store store, Part p, double tokens, long nowMicros) {
    if (tokens >= p.capacity()) {
      store.buckets.remove(p.name());
      return;
    }
    long ttlMillis = (long) Math.ceil((p.capacity() - tokens) / p.refill() * 1000) + 1;
    store.buckets.put(p.name(), new Stored(tokens, nowMicros, Math.floorDiv(nowMicros, 1000) + ttlMillis));
  }
}
