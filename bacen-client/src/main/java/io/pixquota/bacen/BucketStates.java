package io.pixquota.bacen;

import io.pixquota.bacen.internal.BucketStep;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@code bucket_state.lua}'s reply into a {@link BucketState}, with the script's own arithmetic (see
 * {@code token_bucket.lua}): each limit refilled from {@code u} to now at the factor of {@code u}
 * ({@link BucketStep#factorAt}), capped at its capacity.
 */
final class BucketStates {
  private BucketStates() {}

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
    RateAdaptation r = config.rateAdaptation().orElse(RateAdaptation.defaults());
    BucketStep.Adaptation a = new BucketStep.Adaptation(r.decrease(), r.increasePerSecond(), r.floor());
    String u = hash.get("u");
    if (u == null) {
      double capacity = config.limits().stream().mapToDouble(Limit::capacity).min().orElseThrow();
      double rate = config.limits().stream().mapToDouble(Limit::refillPerSecond).min().orElseThrow();
      return new BucketState(config.name(), false, capacity, 0, Duration.ZERO, 1, rate, List.of());
    }
    long last = Long.parseLong(u);
    long now = Math.max(redisNow, last); // never backwards, as the script
    double factorThen = BucketStep.factorAt(hash, last, a);
    double factorNow = BucketStep.factorAt(hash, now, a);
    double tokens = Double.POSITIVE_INFINITY;
    double rate = Double.POSITIVE_INFINITY;
    double waitMicros = 0;
    for (Map.Entry<String, String> e : hash.entrySet()) {
      if (!e.getKey().startsWith("t:")) {
        continue;
      }
      String[] limit = e.getKey().split(":");
      double capacity = Double.parseDouble(limit[1]);
      double refill = Double.parseDouble(limit[2]);
      double t = Math.min(capacity, Double.parseDouble(e.getValue()) + refill * factorThen * (now - last) / 1e6);
      tokens = Math.min(tokens, t);
      rate = Math.min(rate, refill * factorNow);
      if (t < 1) {
        waitMicros = Math.max(waitMicros, (1 - t) / (refill * factorNow) * 1e6);
      }
    }
    String h = hash.get("h");
    if (h != null) {
      waitMicros = Math.max(waitMicros, Long.parseLong(h) - now);
    }
    List<String> live = new ArrayList<>();
    for (Map.Entry<String, String> e : hash.entrySet()) {
      if (e.getKey().startsWith("c:") && Long.parseLong(e.getValue()) >= now) {
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
