package io.pixquota.throttle.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code token_bucket.lua}'s step in Java, operation for operation and in the same order of floating-point
 * operations, over a {@link StepHash} that plays the Redis hash (expiry included); {@link StoredState} is its reading
 * half. {@link io.pixquota.throttle.store.LocalTokenBucket} runs on it, and so do the simulations; a differential test
 * runs random sequences, corrupted fields included, through both this and the script. The script's header is the
 * specification; the Redis module's {@code ScriptProtocol} encodes what the script is sent and reads what it
 * answers into a {@link BucketReply}.
 */
public final class BucketStep {
  /** The script's cap on a wait: 2^53 - 1 microseconds, the largest whole number a Lua number holds exactly. */
  public static final long MAX_WAIT_MICROS = (1L << 53) - 1;
  private static final double MAX_TTL_MILLIS = 1e13;
  /** A cut with no cut this long before it is lone: 60 s. */
  static final long LONE_MICROS = 60_000_000L;
  /** The most calls and reports of the last cut's maker counted since its cut. */
  static final int TALLY = 1000;

  /** What a step does. */
  public enum Op { ACQUIRE, CHARGE, REFUND, CUT, CLOSE }

  /** The layout version the step writes as {@code v}: 2, since replicas name their configuration (r: fields). */
  public static final String LAYOUT = "2";
  /** The longest a caller may book ahead, in seconds: a day. */
  static final double AHEAD_SECONDS = 86_400;
  /** A day of booking ahead and an hour of hold, in seconds. */
  static final double OWED_SECONDS = 90_000;

  private BucketStep() {}

  /**
   * One step at {@code storeNowMicros} (the store's clock: Redis TIME).
   *
   * @param clientMicros the caller's clock (client-clock mode), or null for the store's
   * @param argMicros    acquire: the max wait; cut: the provider's Retry-After; else 0
   * @param booked       cut: the rate generation the refused call was booked under; else null
   */
  public static BucketReply step(StepHash s, Op op, double cost, long argMicros, Long clientMicros, long storeNowMicros,
      Long booked, StepSettings settings) {
    return step(s, op, cost, argMicros, clientMicros, storeNowMicros, booked, settings, null);
  }

  /** The same for a call of {@code flow} (its settings' shares name it; null or another: the flow "*"). */
  public static BucketReply step(StepHash s, Op op, double cost, long argMicros, Long clientMicros, long storeNowMicros,
      Long booked, StepSettings settings, String flow) {
    long storeMillis = Math.floorDiv(storeNowMicros, 1000);
    if (s.expiresAtMillis != null && storeMillis > s.expiresAtMillis) {
      s.hash = new HashMap<>(); // expired
      s.expiresAtMillis = null;
    }
    if (op == Op.CLOSE && s.hash.isEmpty()) {
      return null; // nothing to take out of a state that is gone: none is made for it
    }
    StepSettings.Adaptation a = settings.adaptation();
    long now = clientMicros != null ? Math.min(clientMicros, storeNowMicros) : storeNowMicros;
    StoredState r = new StoredState(s.hash, now, storeNowMicros, a.maxHoldMicros());
    final long at = r.now;
    String myId = settings.configuration();
    Map<String, String> h = r.hash;

    Map<String, Double> leases = new HashMap<>();
    List<String> ids = new ArrayList<>();
    List<String> storedLimits = new ArrayList<>();
    String myField = "c:" + myId;
    String myReplica = "r:" + settings.replica();
    Set<String> live = new HashSet<>();
    Set<String> users = Configurations.read(r, at, settings.maxLeaseMicros(), myField, myReplica, leases, ids,
        storedLimits, live);
    ids.sort(null);
    // the configuration's lease (the longest of its replicas') and this replica's own
    Double myLeaseRead = StoredState.whole(h.get(myField));
    if (myLeaseRead != null && myLeaseRead > at + settings.maxLeaseMicros()) {
      myLeaseRead = null;
    }
    String ownRead = h.get(myReplica);
    Double own = ownRead != null && ownRead.startsWith(myId + "/")
        ? StoredState.whole(ownRead.substring(myId.length() + 1)) : null;
    long lease = settings.leaseMicros();
    boolean renewed = own == null || myLeaseRead == null || own - at < lease * 0.875 || own > at + lease
        || myLeaseRead < own;
    boolean closing = op == Op.CLOSE;
    double myOwn = renewed && !closing ? at + lease : own == null ? 0 : own;
    double myLease = renewed && !closing ? Math.max(myOwn, myLeaseRead == null ? 0 : myLeaseRead)
        : myLeaseRead == null ? 0 : myLeaseRead;
    if (closing) {
      renewed = false;
      r.dead.add(myReplica);
      if (!users.contains(myId)) {
        r.dead.add(myField); // no other live replica uses it: it stops counting now
      }
    } else {
      leases.put(myId, myLease);
    }

    List<String> configurations = new ArrayList<>(ids.size() + 1);
    configurations.add(myId);
    configurations.addAll(ids);
    Map<String, double[]> limits = Configurations.limits(configurations, storedLimits, r.dead);

    RateFactor rate = new RateFactor(r.k, r.fCut, r.p, a);
    double fLast = rate.at(r.last == null ? at : r.last);
    double fNow = rate.at(at);
    ShareFields shares = new ShareFields(r, settings, live, fLast, at, closing);
    LimitTokens lt = new LimitTokens(limits, r, fLast, fNow, at);
    List<String> fields = lt.fields;
    int m = fields.size();
    double[] capacity = lt.capacity;
    double[] refill = lt.refill;
    double[] tokens = lt.tokens;
    shares.settle(ids.isEmpty() && m == 1, capacity, tokens, refill[0], flow);

    double wait = 0;
    if (op == Op.ACQUIRE && shares.inForce()) {
      wait = Math.min(Math.ceil(shares.wait(cost, fNow, r.hold, at)), MAX_WAIT_MICROS);
    } else if (op == Op.ACQUIRE) {
      for (int i = 0; i < m; i++) {
        if (tokens[i] < cost) {
          wait = Math.max(wait, (cost - tokens[i]) / (refill[i] * fNow) * 1000000);
        }
      }
      if (r.hold - at > wait) {
        wait = r.hold - at;
      }
      wait = Math.min(Math.ceil(wait), MAX_WAIT_MICROS);
    }
    long waitMicros = (long) wait;
    long epoch = Long.parseLong(r.epoch);
    String others = String.join(";", ids);
    List<String> repaired = r.repaired();
    int done = 1;
    String flowFrom = shares.inForce() ? shares.from() : null;
    if (op == Op.ACQUIRE && waitMicros > argMicros) {
      done = 0;
      if (!r.gWritten && repaired.isEmpty() && !shares.changed) {
        return new BucketReply(0, waitMicros, smallest(tokens), at, epoch, r.g != null ? r.g : epoch, fNow, r.hold,
            ids.size() + 1, repaired, r.change, others, flowFrom);
      }
    }

    boolean published = false;
    boolean cut = false;
    long generation = r.g != null ? r.g : epoch;
    if (op == Op.CUT) {
      double before = fNow;
      long asked = Math.min(argMicros, a.maxHoldMicros());
      boolean news = booked != null && booked >= generation;
      boolean longer = asked > 0 && at + asked > r.hold;
      boolean mine = settings.replica().equals(r.w) && r.k != null;
      long reports = r.q == null ? 0 : r.q;
      if ((news || longer) && mine && r.o != null && r.o > r.k && (reports + 1) * 2 > (r.a == null ? 0 : r.a)) {
        done = 2; // this replica made the last cut, half its calls since met 429s (this one too), others report none
        news = false;
        longer = false;
      } else if (!news) {
        done = 0;
      }
      if (news) {
        r.fCut = Math.max(a.floor(), a.decrease() * fNow);
        fNow = r.fCut;
        r.p = a.loneRecoveryMicros() > 0 && (r.k == null || at - r.k > LONE_MICROS) ? before : null;
        r.k = at;
        r.w = settings.replica();
        r.a = null;
        r.q = null;
        cut = true;
      }
      if (mine && !cut && reports < TALLY) {
        r.q = reports + 1; // one more report by the cut's maker
        r.writes.put("q", Long.toString(r.q));
      }
      if (news || longer) {
        long previous = generation;
        long held = Math.max(r.hold, at);
        r.g = Math.max(storeNowMicros, generation + 1);
        generation = r.g;
        if (longer) {
          r.hold = at + asked;
        }
        long added = Math.max(0, r.hold - held);
        for (int i = 0; i < m; i++) {
          tokens[i] = Math.min(tokens[i], 0) - (refill[i] * fNow) * added / 1000000;
        }
        if (shares.inForce()) {
          shares.cut(fNow, added, tokens);
        }
        r.change = new GenerationChange(previous, r.g, at, before, fNow, held, Math.max(r.hold, held));
        r.writes.put("j", r.change.text());
        published = true;
        r.gWritten = true;
      }
    } else if (done == 1 && !closing && shares.inForce()) {
      shares.apply(op, cost, fNow, wait, at, tokens);
    } else if (done == 1 && !closing) {
      for (int i = 0; i < m; i++) {
        if (op == Op.REFUND) {
          tokens[i] = Math.min(capacity[i], tokens[i] + cost);
        } else if (op == Op.ACQUIRE) {
          tokens[i] = Math.min(tokens[i], capacity[i] - refill[i] * fNow * wait / 1000000) - cost;
        } else {
          tokens[i] = tokens[i] - cost;
        }
      }
    }
    if (op == Op.ACQUIRE && r.k != null && r.w != null && !r.w.equals(settings.replica())
        && (r.o == null || r.o <= r.k)) {
      r.o = at; // another replica asks for slots since the last cut: its maker's further reports need corroboration
      r.writes.put("o", Long.toString(r.o));
    } else if (op == Op.ACQUIRE && r.k != null && settings.replica().equals(r.w) && at >= r.hold
        && (r.a == null ? 0 : r.a) < TALLY) {
      r.a = (r.a == null ? 0 : r.a) + 1; // a call of the cut's maker once the hold is over
      r.writes.put("a", Long.toString(r.a));
    }

    double ttl = 0;
    Map<String, String> written = new HashMap<>(h);
    r.dead.forEach(written::remove);
    written.putAll(r.writes);
    written.put("u", Long.toString(at));
    if (r.fresh) {
      written.put("e", r.epoch);
    }
    if (!LAYOUT.equals(h.get("v"))) {
      written.put("v", LAYOUT);
    }
    if (renewed) {
      written.put(myField, Long.toString((long) myLease));
      written.put(myReplica, myId + "/" + (long) myOwn);
    }
    for (int i = 0; i < m; i++) {
      written.put(fields.get(i), Double.toString(tokens[i]));
      double toFull = (capacity[i] - tokens[i]) / (refill[i] * fNow) * 1000;
      if (toFull > ttl) {
        ttl = toFull;
      }
    }
    ttl = Math.max(ttl, shares.write(written, settings.replica(), renewed, fNow));
    for (double ends : leases.values()) {
      if ((ends - at) / 1000 > ttl) {
        ttl = (ends - at) / 1000;
      }
    }
    if (r.gWritten) {
      written.put("g", Long.toString(r.g));
    }
    if (cut) {
      written.put("k", Long.toString(r.k));
      written.put("f", Double.toString(r.fCut));
      written.put("w", r.w);
      written.remove("a");
      written.remove("q");
      if (r.p != null) {
        written.put("p", Double.toString(r.p));
      } else {
        written.remove("p");
      }
    }
    if (published && r.hold > at) {
      written.put("h", Long.toString(r.hold));
    }
    if (r.k != null) {
      ttl = Math.max(ttl, new RateFactor(r.k, r.fCut, r.p, a).millisToFull(at, fNow));
    }
    if (r.hold > at && (double) (r.hold - at) / 1000 > ttl) {
      ttl = (double) (r.hold - at) / 1000;
    }
    ttl = Math.min(Math.ceil(ttl + Math.max(0, at - storeNowMicros) / 1000.0) + 1, MAX_TTL_MILLIS);
    long pttl = s.hash.isEmpty() ? -2 : s.expiresAtMillis == null ? -1 : s.expiresAtMillis - storeMillis;
    if (r.fresh || pttl < ttl) { // else the key lives long enough: no PEXPIRE
      ttl = Math.min(ttl + Math.floor(ttl / 4), MAX_TTL_MILLIS);
      s.expiresAtMillis = storeMillis + (long) ttl;
    }
    s.hash = written;
    return new BucketReply(done, waitMicros, smallest(tokens), at, epoch, generation, fNow, r.hold, ids.size() + 1,
        repaired, r.change, others, flowFrom);
  }

  private static double smallest(double[] tokens) {
    double m = tokens[0];
    for (int i = 1; i < tokens.length; i++) {
      m = Math.min(m, tokens[i]);
    }
    return m;
  }
}
