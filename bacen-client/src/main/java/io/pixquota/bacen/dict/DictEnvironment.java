package io.pixquota.bacen.dict;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/** Reads a {@link DictClientConfig} from variables; every error names the variable and its value (never a secret). */
final class DictEnvironment {
  private final Map<String, String> env;

  private DictEnvironment(Map<String, String> env) {
    this.env = Objects.requireNonNull(env, "env cannot be null");
  }

  static DictClientConfig read(Map<String, String> env) {
    return new DictEnvironment(env).read();
  }

  private DictClientConfig read() {
    DictClientConfig.Builder b = DictClientConfig.builder();
    set("DICT_BASE_URL", required("DICT_BASE_URL"), v -> b.baseUrl(URI.create(v)));
    set("DICT_PARTICIPANT", required("DICT_PARTICIPANT"), b::participant);
    String secret = required("DICT_PAYER_SECRET");
    try {
      b.payerSecret(secret);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("DICT_PAYER_SECRET is invalid: " + e.getMessage(), e);
    }
    optional("DICT_POLICIES", v -> b.policies(DictPolicies.parse(v)));
    optional("DICT_POLICY_SIZES", v -> sizes(b, v));
    String redis = env.get("REDIS_URL");
    if (redis != null && !redis.isBlank()) {
      try {
        b.redisUrl(redis);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("REDIS_URL is invalid: " + e.getMessage(), e); // the URL may hold a password
      }
    }
    optional("DICT_MAX_WAIT_MS", v -> b.maxWait(millis(v)));
    optional("DICT_CALL_TIMEOUT_MS", v -> b.callTimeout(millis(v)));
    optional("DICT_NEGATIVE_CACHE_MS", v -> b.negativeCacheTtl(millis(v)));
    optional("DICT_CREDIT_TTL_MS", v -> b.creditTtl(millis(v)));
    reserve(b);
    try {
      return b.build();
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(e.getMessage() + " (DICT_MAX_WAIT_MS, DICT_CALL_TIMEOUT_MS)", e);
    }
  }

  /** DICT_RESERVE, DICT_RISKY_RESERVE, DICT_STANDING_PRICE, DICT_STANDING_TTL_MS over the defaults. */
  private void reserve(DictClientConfig.Builder b) {
    DictReserve d = DictReserve.defaults();
    double share = number("DICT_RESERVE", d.share());
    double risky = number("DICT_RISKY_RESERVE", Math.max(share, d.riskyShare()));
    double price = number("DICT_STANDING_PRICE", 0);
    if (price != Math.rint(price)) {
      throw new IllegalArgumentException("DICT_STANDING_PRICE is invalid ('" + env.get("DICT_STANDING_PRICE").trim()
          + "'): not a whole number");
    }
    String ttl = env.get("DICT_STANDING_TTL_MS");
    Duration standingTtl = d.standingTtl();
    if (ttl != null && !ttl.isBlank()) {
      try {
        standingTtl = millis(ttl.trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("DICT_STANDING_TTL_MS is invalid ('" + ttl.trim() + "'): "
            + e.getMessage(), e);
      }
    }
    try {
      b.reserve(new DictReserve(share, risky, (int) price, standingTtl));
    } catch (IllegalArgumentException e) {
      String m = e.getMessage();
      String name = m.startsWith("reserve share") ? "DICT_RESERVE" : m.startsWith("reserve riskyShare")
          ? "DICT_RISKY_RESERVE" : m.startsWith("reserve price") ? "DICT_STANDING_PRICE" : "DICT_STANDING_TTL_MS";
      throw new IllegalArgumentException(name + " is invalid: " + m, e);
    }
  }

  private double number(String name, double fallback) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      return fallback;
    }
    try {
      double d = Double.parseDouble(v.trim());
      if (!Double.isFinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " is invalid ('" + v.trim() + "'): not a number", e);
    }
  }

  private String required(String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
    return v.trim();
  }

  private void optional(String name, Consumer<String> setter) {
    String v = env.get(name);
    if (v != null && !v.isBlank()) {
      set(name, v.trim(), setter);
    }
  }

  private static void set(String name, String value, Consumer<String> setter) {
    try {
      setter.accept(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " is invalid ('" + value + "'): " + e.getMessage(), e);
    }
  }

  /** {@code NAME=capacity/tokens/periodSeconds[,...]}: policies of the table resized (a category, a contract). */
  private static void sizes(DictClientConfig.Builder b, String v) {
    for (String item : v.split(",")) {
      String[] nameAndSize = item.trim().split("=", 2);
      String[] size = nameAndSize.length == 2 ? nameAndSize[1].trim().split("/") : new String[0];
      if (size.length != 3) {
        throw new IllegalArgumentException("each item must be NAME=capacity/tokens/periodSeconds, but one was '"
            + item.trim() + "'");
      }
      try {
        b.policy(nameAndSize[0].trim(), Double.parseDouble(size[0]), Double.parseDouble(size[1]),
            Duration.ofSeconds(Long.parseLong(size[2].trim())));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + item.trim() + "' has a number that does not read", e);
      }
    }
  }

  private static Duration millis(String v) {
    try {
      return Duration.ofMillis(Long.parseLong(v));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a whole number of milliseconds", e);
    }
  }
}
