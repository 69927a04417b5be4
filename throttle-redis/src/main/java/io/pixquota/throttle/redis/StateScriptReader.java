package io.pixquota.throttle.redis;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.internal.RateFactor;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.internal.StoredState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code bucket_state.lua}'s reply into a {@link BucketState}, with the step's own arithmetic (see
 * {@code token_bucket.lua}): each limit refilled from {@code u} to now at the factor of {@code u}
 * ({@link RateFactor#factorAt}, {@link RateFactor#refilled}), capped at its capacity. Fields the script would not
 * trust are left out, as the next call will reset them.
 */
final class StateScriptReader {
  private StateScriptReader() {}

  /**
   * @param text "&lt;Redis TIME in microseconds&gt; &lt;field&gt;=&lt;value&gt; ..."
   * @throws IllegalArgumentException when {@code text} is not such a reply
   */
  static BucketState read(TokenBucketConfig config, String text) {
    String[] parts = text == null ? new String[0] : text.split(" ");
    Map<String, String> hash = new HashMap<>();
    try {
      long now = Long.parseLong(parts[0]);
      for (int i = 1; i < parts.length; i++) {
        int eq = parts[i].indexOf('=');
        hash.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
      }
      return state(config, now, hash);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("not a reply of the bucket's state script: '" + text + "'", e);
    }
  }

  private static BucketState state(TokenBucketConfig config, long redisNow, Map<String, String> hash) {
    StepSettings.Adaptation a = TokenBucketConfig.adaptation(config.rateAdaptation().orElse(
        RateAdaptation.defaults()));
    Double u = StoredState.whole(hash.get("u"));
    if (u == null) { // no state (or one the next call resets): full
      double capacity = config.limits().stream().mapToDouble(Limit::capacity).min().orElseThrow();
      double rate = config.limits().stream().mapToDouble(Limit::refillPerSecond).min().orElseThrow();
      return new BucketState(config.name(), false, capacity, 0, Duration.ZERO, 1, rate, List.of());
    }
    long last = Math.min(u.longValue(), redisNow + 1_000_000); // a stored time far ahead: the script reads it as now
    long now = Math.max(redisNow, last); // never backwards, as the script
    double factorThen = RateFactor.factorAt(hash, last, redisNow, a);
    double factorNow = RateFactor.factorAt(hash, now, redisNow, a);
    double tokens = Double.POSITIVE_INFINITY;
    double rate = Double.POSITIVE_INFINITY;
    double waitMicros = 0;
    for (Map.Entry<String, String> e : hash.entrySet()) {
      String[] limit = e.getKey().split(":");
      Double stored = StoredState.finite(e.getValue());
      if (!e.getKey().startsWith("t:") || limit.length != 3 || stored == null
          || StoredState.finite(limit[1]) == null || StoredState.finite(limit[2]) == null) {
        continue;
      }
      double capacity = Double.parseDouble(limit[1]);
      double refill = Double.parseDouble(limit[2]);
      double t = RateFactor.refilled(capacity, refill, stored, factorThen, last, now);
      tokens = Math.min(tokens, t);
      rate = Math.min(rate, refill * factorNow);
      if (t < 1) {
        waitMicros = Math.max(waitMicros, (1 - t) / (refill * factorNow) * 1e6);
      }
    }
    Double h = StoredState.whole(hash.get("h"));
    if (h != null) {
      waitMicros = Math.max(waitMicros, Math.min(h.longValue() - now, a.maxHoldMicros()));
    }
    List<String> live = new ArrayList<>();
    for (Map.Entry<String, String> e : hash.entrySet()) {
      Double ends = StoredState.whole(e.getValue());
      if (e.getKey().startsWith("c:") && ends != null && ends >= now) {
        live.add(e.getKey().substring(2));
      }
    }
    live.sort(null);
    if (tokens == Double.POSITIVE_INFINITY) { // no limit stored yet
      return state(config, redisNow, Map.of());
    }
    return new BucketState(config.name(), true, tokens, Math.max(0, -tokens),
        Duration.ofNanos((long) Math.ceil(waitMicros * 1000)), factorNow, rate, live);
  }
}
