package io.pixquota.throttle.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code token_bucket.lua} reads of a bucket's hash before it decides, with the script's distrust: every field
 * validated, in the script's order, and what cannot be trusted reset and named ({@link #repaired}). The first half of
 * {@link BucketStep}; the Redis bucket's state reading uses it too, so that what is shown
 * is what the next step will see. Not threadsafe: one step's reading.
 */
public final class StoredState {
  /** The longest any configuration counts after its last use, whoever wrote it: 300 s. */
  public static final long MAX_LEASE_MICROS = 300_000_000L;
  /** A stored hold further than this (1 h) is garbage, not a hold. */
  public static final long MAX_HOLD_MICROS = 3_600_000_000L;
  /** How far a stored time may be ahead of Redis's clock before it is not believed: 1 s. */
  static final long SLACK_MICROS = 1_000_000L;
  private static final Pattern NUMBER = Pattern.compile("\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*");
  private static final Pattern LIMIT = Pattern.compile("([^:,]+):([^:,]+)");

  final Map<String, String> hash;
  final boolean fresh;
  final String epoch;
  final Long last;
  final long now;
  final long redisNow;
  Long k;
  Double fCut;
  Double p;
  String w;
  Long a;
  Long q;
  Long o;
  Long g;
  boolean gWritten;
  /** The last change of generation, when the state holds one of its current generation; else null. */
  GenerationChange change;
  long hold;
  final List<String> dead = new ArrayList<>();
  /** Fields to write, in the order the script writes them (a later value for the same field wins, as in HSET). */
  final Map<String, String> writes = new LinkedHashMap<>();
  private final Set<String> repaired = new LinkedHashSet<>();

  /**
   * Reads {@code stored} (the hash; empty when the key is missing) at {@code now} (the caller's clock, already capped
   * at Redis's), {@code redisNow} (Redis's clock), for a caller whose longest hold is {@code maxHoldMicros}.
   */
  public StoredState(Map<String, String> stored, long now, long redisNow, long maxHoldMicros) {
    Double e = whole(stored.get("e"));
    boolean isFresh = stored.isEmpty();
    if (!isFresh && (e == null || e < 0 || e > BucketStep.MAX_WAIT_MICROS)) {
      repair("e");
      isFresh = true;
    }
    Long lastRead = null;
    if (isFresh) {
      this.hash = new LinkedHashMap<>();
      this.epoch = Long.toString(redisNow);
    } else {
      this.hash = stored;
      this.epoch = Long.toString(e.longValue());
      Double u = whole(stored.get("u"));
      if (u == null || u > redisNow + SLACK_MICROS) {
        repair("u");
        lastRead = now;
      } else {
        lastRead = u.longValue();
        if (lastRead > now) {
          now = lastRead;
        }
      }
    }
    this.fresh = isFresh;
    this.last = lastRead;
    this.now = now;
    this.redisNow = redisNow;
    readCut();
    readHold(maxHoldMicros);
    if (hash.containsKey("x")) {
      dead.add("x");
    }
  }

  private void readCut() {
    Double kRead = whole(hash.get("k"));
    fCut = finite(hash.get("f"));
    p = finite(hash.get("p"));
    w = hash.get("w");
    Double oRead = whole(hash.get("o"));
    k = kRead == null ? null : kRead.longValue();
    o = oRead == null ? null : oRead.longValue();
    if ((hash.containsKey("k") || hash.containsKey("f")) && (k == null || fCut == null || fCut <= 0 || fCut > 1)) {
      repair("f");
      k = null;
      fCut = null;
      dead.add("k");
      dead.add("f");
    }
    if (k != null && k > now) {
      k = now;
    }
    if (hash.containsKey("p") && (k == null || p == null || p <= 0 || p > 1)) {
      if (k != null) {
        repair("p");
      }
      p = null;
      dead.add("p");
    }
    if (hash.containsKey("o") && o == null) {
      repair("o");
      dead.add("o");
    }
    if (w != null && (k == null || !w.matches("[A-Za-z0-9]+") || w.length() > 32)) {
      if (k != null) {
        repair("w");
      }
      w = null;
      dead.add("w");
    }
    a = tally("a");
    q = tally("q");
    Double gRead = whole(hash.get("g"));
    g = gRead == null ? null : gRead.longValue();
    long e = Long.parseLong(epoch);
    if (hash.containsKey("g") && (gRead == null || gRead < e || gRead > BucketStep.MAX_WAIT_MICROS)) {
      repair("g");
      g = Math.max(redisNow, e + 1); // a generation nobody has seen: slots of the unreadable one book again
      gWritten = true;
    }
    readChange();
  }

  /** j: the last change of generation; one of another generation (an older release cut since) is dropped. */
  private void readChange() {
    if (!hash.containsKey("j")) {
      return;
    }
    GenerationChange read = GenerationChange.parse(hash.get("j"));
    if (read == null) {
      repair("j");
      dead.add("j");
    } else if (g == null || gWritten || read.generation() != g) {
      dead.add("j");
    } else {
      change = read;
    }
  }

  /** The last change of generation the state holds for its current one, or null. */
  public GenerationChange change() {
    return change;
  }

  /** The last change of generation {@code stored} holds for its current one, read at {@code nowMicros}, or null. */
  public static GenerationChange change(Map<String, String> stored, long nowMicros) {
    return stored.isEmpty() ? null : new StoredState(stored, nowMicros, nowMicros, MAX_HOLD_MICROS).change();
  }

  private void readHold(long maxHoldMicros) {
    if (!hash.containsKey("h")) {
      return;
    }
    Double h = whole(hash.get("h"));
    if (h == null || h > now + MAX_HOLD_MICROS) {
      repair("h");
      hold = 0;
      dead.add("h");
    } else {
      hold = h.longValue();
      if (hold > now + maxHoldMicros) {
        hold = now + maxHoldMicros; // the strictest bound of the fleet's replicas on a provider's hold
        if (hold > now) {
          writes.put("h", Long.toString(hold));
        }
      }
    }
  }

  /** Whether there was no state to trust (missing, or its epoch unreadable): the step starts a new one. */
  public boolean isFresh() {
    return fresh;
  }

  /** The state's epoch (a new one when {@link #isFresh()}). */
  public long epoch() {
    return Long.parseLong(epoch);
  }

  /** The rate generation stored (a new one when it was unreadable), or null when the rate was never cut. */
  public Long generation() {
    return g;
  }

  /** A count of the last cut's maker (its calls, its reports): 0 to {@link BucketStep#TALLY}, and only with a maker. */
  private Long tally(String field) {
    Double read = whole(hash.get(field));
    if (hash.containsKey(field) && (w == null || read == null || read < 0 || read > BucketStep.TALLY)) {
      if (w != null) {
        repair(field);
      }
      dead.add(field);
      return null;
    }
    return read == null ? null : read.longValue();
  }

  /** Names a field this step could not trust and reset; each once, in the order met. */
  void repair(String field) {
    repaired.add(field);
  }

  /** The fields reset so far, in the order met. */
  public List<String> repaired() {
    return List.copyOf(repaired);
  }

  /**
   * Whether a configuration's name is a list of 1 to 16 limits, each within what a caller may configure, written as
   * the script rebuilds it.
   */
  static boolean validConfiguration(String id) {
    Matcher m = LIMIT.matcher(id);
    List<String> rebuilt = new ArrayList<>();
    while (m.find()) {
      Double c = finite(m.group(1));
      Double r = finite(m.group(2));
      if (c == null || r == null || c <= 0 || c > 1e12 || r < 1e-6 || r > 1e12) {
        return false;
      }
      rebuilt.add(m.group(1) + ":" + m.group(2));
    }
    return !rebuilt.isEmpty() && rebuilt.size() <= 16 && String.join(",", rebuilt).equals(id);
  }

  /** Lua's {@code tonumber} on what a hash holds, keeping finite numbers only: null for anything else. */
  public static Double finite(String s) {
    if (s == null || !NUMBER.matcher(s).matches()) {
      return null;
    }
    double v = Double.parseDouble(s.trim());
    return Double.isFinite(v) ? v : null;
  }

  /**
   * {@link #finite} and a whole number of 0 .. 2^53 - 1 (times are written as whole microseconds, counts as whole
   * numbers); null for anything else.
   */
  public static Double whole(String s) {
    Double v = finite(s);
    return v == null || Math.floor(v) != v || v < 0 || v > BucketStep.MAX_WAIT_MICROS ? null : v;
  }
}
