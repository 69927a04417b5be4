package io.pixquota.throttle.internal;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** The bucket's hash, and when it expires on the store's clock (null: never); starts missing. Not threadsafe. */
public final class StepHash {
  Map<String, String> hash = new HashMap<>();
  Long expiresAtMillis;

  /**
   * The rate generation the state is at (what the script publishes to the fleet after a cut); 0 while missing. A
   * bucket sharing this state hears of a cut as every process hears of it through the bucket's channel.
   */
  public long generation() {
    Double g = StoredState.finite(hash.get("g"));
    Double e = StoredState.finite(hash.get("e"));
    return g != null ? g.longValue() : e != null ? e.longValue() : 0;
  }

  /** The hash as it stands, for tests: read-only. */
  public Map<String, String> hash() {
    return Collections.unmodifiableMap(hash);
  }

  /**
   * Writes a field at {@code storeNowMicros} as anyone with access to Redis could (an operator, a bug), as HSET
   * does: on an expired key, a new key without expiry. For tests of distrust.
   */
  public void put(String field, String value, long storeNowMicros) {
    if (expiresAtMillis != null && Math.floorDiv(storeNowMicros, 1000) > expiresAtMillis) {
      hash = new HashMap<>();
      expiresAtMillis = null;
    }
    hash.put(field, value);
  }
}
