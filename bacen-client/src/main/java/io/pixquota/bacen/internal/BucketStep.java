package io.pixquota.bacen.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code token_bucket.lua}'s step in Java, operation for operation and in the same order of floating-point
 * operations, over a {@link State} that plays the Redis hash (expiry included). {@link LocalTokenBucket} runs on it,
 * and so do the simulations; a differential test runs random sequences through both this and the script. The
 * script's header is the specification.
 */
public final class BucketStep {
  /** The script's cap on a wait: 2^53 - 1 microseconds, the largest whole number a Lua number holds exactly. */
  public static final long MAX_WAIT_MICROS = (1L << 53) - 1;
  private static final double MAX_TTL_MILLIS = 1e13;

  /** What a step does. */
  public enum Op { ACQUIRE, CHARGE, REFUND, CUT }

  /**
   * How the shared rate follows the provider's refusals: cut to {@code decrease} of itself, then back up by
   * {@code increasePerSecond} of the configured rate per second, never below {@code floor} of it.
   */
  public record Adaptation(double decrease, double increasePerSecond, double floor) {}

  /** One limit as the caller formats it, and its values. */
  public record LimitArgs(String capacity, String refill) {
    String field() {
      return "t:" + capacity + ":" + refill;
    }
  }

  /** The step's answer: the script's reply, value for value. */
  public record Reply(boolean done, long waitMicros, double remaining, long nowMicros, long epoch, long generation,
      double factor, long holdUntilMicros, int configurations, String others) {
    /**
     * Reads the script's reply: "done wait tokens now epoch", then, unless the rate was never cut, never held and
     * no other configuration is live, " generation factor hold configurations others".
     *
     * @throws IllegalArgumentException when {@code text} is not such a reply
     */
    public static Reply parse(String text) {
      String[] v = text == null ? new String[0] : text.split(" ", -1);
      try {
        if (v.length == 5) {
          long epoch = Long.parseLong(v[4]);
          return new Reply("1".equals(v[0]), Long.parseLong(v[1]), Double.parseDouble(v[2]), Long.parseLong(v[3]),
              epoch, epoch, 1, 0, 1, "");
        } else if (v.length == 10) {
          return new Reply("1".equals(v[0]), Long.parseLong(v[1]), Double.parseDouble(v[2]), Long.parseLong(v[3]),
              Long.parseLong(v[4]), Long.parseLong(v[5]), Double.parseDouble(v[6]), Long.parseLong(v[7]),
              Integer.parseInt(v[8]), v[9]);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not a reply of the bucket's script: '" + text + "'", e);
      }
      throw new IllegalArgumentException("not a reply of the bucket's script: '" + text + "'");
    }
  }

  /** The bucket's hash, and when it expires on the store's clock; starts missing. Not threadsafe. */
  public static final class State {
    private Map<String, String> hash = new HashMap<>();
    private long expiresAtMicros = Long.MIN_VALUE;

    /**
     * The rate generation the state is at (what the script publishes to the fleet after a cut); 0 while missing. A
     * bucket sharing this state hears of a cut as every process hears of it through the bucket's channel.
     */
    public long generation() {
      String g = hash.get("g");
      String e = hash.get("e");
      return g != null ? Long.parseLong(g) : e != null ? Long.parseLong(e) : 0;
    }
  }

  private BucketStep() {}

  /**
   * One step at {@code storeNowMicros} (the store's clock: Redis TIME).
   *
   * @param clientMicros the caller's clock (client-clock mode), or null for the store's
   * @param argMicros    acquire: the max wait; cut: the provider's Retry-After; else 0
   * @param booked       cut: the rate generation the refused call was booked under; else null
   */
  public static Reply step(State s, Op op, double cost, long argMicros, Long clientMicros, long storeNowMicros,
      long leaseMicros, Adaptation a, Long booked, List<LimitArgs> callerLimits) {
    if (storeNowMicros >= s.expiresAtMicros) {
      s.hash = new HashMap<>(); // PEXPIRE: gone
    }
    long now = storeNowMicros;
    if (clientMicros != null) {
      now = Math.min(clientMicros, storeNowMicros);
    }
    List<String> mine = new ArrayList<>();
    for (LimitArgs l : callerLimits) {
      mine.add(l.capacity() + ":" + l.refill());
    }
    mine.sort(null);
    String myId = String.join(",", mine);

    Map<String, String> h = s.hash;
    Long lastOrNull = parseLong(h.get("u"));
    String epoch = h.get("e");
    boolean fresh = lastOrNull == null || epoch == null;
    if (fresh) {
      h = new HashMap<>();
      lastOrNull = null;
      epoch = Long.toString(storeNowMicros);
    } else if (lastOrNull > now) {
      now = lastOrNull;
    }
    final long at = now;
    final Long last = lastOrNull;

    Long k = parseLong(h.get("k"));
    Double fCut = parseDouble(h.get("f"));
    Long g = parseLong(h.get("g"));
    long hold = h.containsKey("h") ? Long.parseLong(h.get("h")) : 0;

    Map<String, Long> leases = new HashMap<>();
    List<String> ids = new ArrayList<>();
    List<String> dead = new ArrayList<>();
    for (Map.Entry<String, String> e : h.entrySet()) {
      if (e.getKey().startsWith("c:")) {
        String id = e.getKey().substring(2);
        if (!id.equals(myId)) {
          if (Long.parseLong(e.getValue()) >= at) {
            leases.put(id, Long.parseLong(e.getValue()));
            ids.add(id);
          } else {
            dead.add(e.getKey());
          }
        }
      }
    }
    ids.sort(null);
    Long myLease = parseLong(h.get("c:" + myId));
    boolean renewed = myLease == null || myLease - at < leaseMicros * 0.875; // less than 7/8 of the lease left
    if (renewed) {
      myLease = at + leaseMicros;
    }
    leases.put(myId, myLease);

    Map<String, double[]> limits = new LinkedHashMap<>(); // field -> {capacity, refill}
    List<String> configurations = new ArrayList<>(ids.size() + 1);
    configurations.add(myId);
    configurations.addAll(ids);
    for (String id : configurations) {
      for (String pair : id.split(",")) {
        String[] cr = pair.split(":");
        LimitArgs l = new LimitArgs(cr[0], cr[1]);
        limits.putIfAbsent(l.field(), new double[] {Double.parseDouble(cr[0]), Double.parseDouble(cr[1])});
      }
    }
    for (String field : h.keySet()) {
      if (field.startsWith("t:") && !limits.containsKey(field)) {
        dead.add(field);
      }
    }
    if (h.containsKey("h") && hold <= at) {
      dead.add("h");
    }

    Rate rate = new Rate(k, fCut, a);
    double fLast = rate.at(last == null ? at : last);
    double fNow = rate.at(at);
    List<String> fields = new ArrayList<>(limits.keySet());
    int m = fields.size();
    double[] capacity = new double[m];
    double[] refill = new double[m];
    double[] tokens = new double[m];
    boolean[] known = new boolean[m];
    double busiest = 0;
    for (int i = 0; i < m; i++) {
      capacity[i] = limits.get(fields.get(i))[0];
      refill[i] = limits.get(fields.get(i))[1];
      Double stored = parseDouble(h.get(fields.get(i)));
      if (last == null) {
        tokens[i] = capacity[i];
        known[i] = true;
      } else if (stored != null) {
        tokens[i] = Math.min(capacity[i], stored + refill[i] * fLast * (double) (at - last) / 1000000);
        known[i] = true;
        double toFull = (capacity[i] - tokens[i]) / (refill[i] * fNow);
        if (toFull > busiest) {
          busiest = toFull;
        }
      }
    }
    for (int i = 0; i < m; i++) {
      if (!known[i]) {
        tokens[i] = capacity[i] - refill[i] * fNow * busiest;
      }
    }

    double wait = 0;
    if (op == Op.ACQUIRE) {
      for (int i = 0; i < m; i++) {
        if (tokens[i] < cost) {
          double w = (cost - tokens[i]) / (refill[i] * fNow) * 1000000;
          if (w > wait) {
            wait = w;
          }
        }
      }
      if (hold - at > wait) {
        wait = hold - at;
      }
      wait = Math.min(Math.ceil(wait), MAX_WAIT_MICROS);
    }
    long waitMicros = (long) wait;
    long generation = g != null ? g : Long.parseLong(epoch);
    String others = String.join(";", ids);

    if (op == Op.ACQUIRE && waitMicros > argMicros) {
      return new Reply(false, waitMicros, smallest(tokens), at, Long.parseLong(epoch), generation, fNow, hold,
          ids.size() + 1, others);
    }

    boolean done = true;
    boolean published = false;
    boolean cut = false;
    if (op == Op.CUT) {
      boolean news = booked != null && booked >= generation;
      boolean longer = argMicros > 0 && at + argMicros > hold;
      if (news) {
        fCut = Math.max(a.floor(), a.decrease() * fNow);
        fNow = fCut;
        k = at;
        cut = true;
      } else {
        done = false;
      }
      if (news || longer) {
        g = Math.max(storeNowMicros, generation + 1);
        generation = g;
        if (longer) {
          hold = at + argMicros;
        }
        for (int i = 0; i < m; i++) {
          tokens[i] = -(refill[i] * fNow) * Math.max(0, hold - at) / 1000000;
        }
        published = true;
      }
    } else {
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

    double ttl = 0;
    Map<String, String> written = new HashMap<>(h);
    dead.forEach(written::remove);
    written.put("u", Long.toString(at));
    if (fresh) {
      written.put("e", epoch);
    }
    if (renewed) {
      written.put("c:" + myId, Long.toString(myLease));
    }
    for (int i = 0; i < m; i++) {
      written.put(fields.get(i), Double.toString(tokens[i]));
      double toFull = (capacity[i] - tokens[i]) / (refill[i] * fNow) * 1000;
      if (toFull > ttl) {
        ttl = toFull;
      }
    }
    for (long ends : leases.values()) {
      if ((double) (ends - at) / 1000 > ttl) {
        ttl = (double) (ends - at) / 1000;
      }
    }
    if (published) {
      written.put("g", Long.toString(g));
      if (cut) {
        written.put("k", Long.toString(k));
        written.put("f", Double.toString(fCut));
      }
      if (hold > at) {
        written.put("h", Long.toString(hold));
      }
    }
    if (k != null && (1 - fNow) / a.increasePerSecond() * 1000 > ttl) {
      ttl = (1 - fNow) / a.increasePerSecond() * 1000;
    }
    if (hold > at && (double) (hold - at) / 1000 > ttl) {
      ttl = (double) (hold - at) / 1000;
    }
    ttl = Math.min(Math.ceil(ttl + Math.max(0, at - storeNowMicros) / 1000.0) + 1, MAX_TTL_MILLIS);
    long storeMillis = Math.floorDiv(storeNowMicros, 1000);
    Long lives = parseLong(h.get("x"));
    if (lives == null || storeMillis + ttl > lives) { // else the key lives long enough: no PEXPIRE
      ttl = Math.min(ttl + Math.floor(ttl / 4), MAX_TTL_MILLIS);
      written.put("x", Long.toString(storeMillis + (long) ttl - 1));
      s.expiresAtMicros = storeNowMicros + (long) ttl * 1000;
    }
    s.hash = written;
    return new Reply(done, waitMicros, smallest(tokens), at, Long.parseLong(epoch), generation, fNow, hold,
        ids.size() + 1, others);
  }

  /**
   * The factor of the configured rates at {@code micros} in the state {@code hash} (its last cut's time {@code k} and
   * factor {@code f}): what the step refills with; 1 when never cut. For reading a state without stepping it.
   */
  public static double factorAt(Map<String, String> hash, long micros, Adaptation a) {
    return new Rate(parseLong(hash.get("k")), parseDouble(hash.get("f")), a).at(micros);
  }

  /** The factor of the configured rates at a time, from the last cut. */
  private record Rate(Long cutAt, Double cutFactor, Adaptation a) {
    double at(long micros) {
      if (cutAt == null) {
        return 1;
      }
      double v = cutFactor + a.increasePerSecond() * (double) (micros - cutAt) / 1000000;
      if (v > 1) {
        return 1;
      } else if (v < a.floor()) {
        return a.floor();
      }
      return v;
    }
  }

  private static double smallest(double[] tokens) {
    double m = tokens[0];
    for (int i = 1; i < tokens.length; i++) {
      m = Math.min(m, tokens[i]);
    }
    return m;
  }

  private static Long parseLong(String s) {
    return s == null ? null : (long) Double.parseDouble(s);
  }

  private static Double parseDouble(String s) {
    return s == null ? null : Double.parseDouble(s);
  }

  /** The live configurations other than the caller's, for tests: id to lease end. */
  static Map<String, Long> leases(State s) {
    Map<String, Long> out = new TreeMap<>();
    s.hash.forEach((f, v) -> {
      if (f.startsWith("c:")) {
        out.put(f.substring(2), Long.parseLong(v));
      }
    });
    return out;
  }
}
