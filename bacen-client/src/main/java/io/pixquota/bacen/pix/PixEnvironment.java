package io.pixquota.bacen.pix;

import io.pixquota.throttle.Priority;
import io.pixquota.throttle.QuotaHeaders;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.redis.RedisAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reads a {@link PixClientConfig} from environment variables (listed in {@link PixClientConfig#fromEnvironment(Map)}
 * and {@code docs/configuration.md}). Every error names the variable and its value (a Redis URL without its
 * password). Defaults are the builder's.
 */
final class PixEnvironment {
  private final Map<String, String> env;
  private final PixClientConfigBuilder b = PixClientConfig.builder();

  private PixEnvironment(Map<String, String> env) {
    this.env = Objects.requireNonNull(env, "env cannot be null");
  }

  static PixClientConfig read(Map<String, String> env) {
    return new PixEnvironment(env).read();
  }

  private PixClientConfig read() {
    set("BACEN_BASE_URL", required("BACEN_BASE_URL"), v -> b.baseUrl(uri(v)));
    optional("BACEN_TOKEN_URL", v -> b.tokenUrl(uri(v)));
    b.credentials(required("BACEN_CLIENT_ID"), required("BACEN_CLIENT_SECRET"));
    optional("REDIS_URL", b::redisUrl);
    optional("BACEN_BUCKET_NAME", b::bucketName);
    double capacity = number("BACEN_BUCKET_CAPACITY", b.bucketCapacity);
    double rate = number("BACEN_BUCKET_RATE", b.bucketRate);
    set("BACEN_BUCKET_CAPACITY", env.get("BACEN_BUCKET_CAPACITY"), v -> b.bucket(capacity, b.bucketRate));
    set("BACEN_BUCKET_RATE", env.get("BACEN_BUCKET_RATE"), v -> b.bucket(capacity, rate));
    optional("BACEN_MAX_WAIT_MS", v -> b.maxWait(millis("BACEN_MAX_WAIT_MS")));
    optional("BACEN_CALL_TIMEOUT_MS", v -> b.callTimeout(millis("BACEN_CALL_TIMEOUT_MS")));
    optional("BACEN_REDIS_TIMEOUT_MS", v -> b.redisTimeout(millis("BACEN_REDIS_TIMEOUT_MS")));
    int attempts = whole("BACEN_RETRY_MAX_ATTEMPTS", b.retry.maxAttempts());
    set("BACEN_RETRY_MAX_ATTEMPTS", env.get("BACEN_RETRY_MAX_ATTEMPTS"),
        v -> b.retry(attempts, b.retry.initialBackoff(), b.retry.maxBackoff(), b.retry.maxTotal()));
    Duration initial = millisOr("BACEN_RETRY_INITIAL_BACKOFF_MS", b.retry.initialBackoff());
    Duration max = millisOr("BACEN_RETRY_MAX_BACKOFF_MS", b.retry.maxBackoff());
    Duration total = millisOr("BACEN_RETRY_MAX_TOTAL_MS", b.retry.maxTotal());
    set("BACEN_RETRY_*_MS", null, v -> b.retry(attempts, initial, max, total));
    RedisUnavailablePolicy policy = policy();
    double share = number("BACEN_LOCAL_SHARE", b.localShare);
    set("BACEN_LOCAL_SHARE", env.get("BACEN_LOCAL_SHARE"), v -> b.redisUnavailable(policy, share));
    optional("BACEN_CONFIGURATION_LEASE_MS", v -> b.configurationLease(millis("BACEN_CONFIGURATION_LEASE_MS")));
    optional("BACEN_RATE_ADAPTATION", v -> b.rateAdaptation(switchedOn(v) ? RateAdaptation.defaults() : null));
    optional("BACEN_DEFAULT_PRIORITY", v -> b.defaultPriority(priority(v)));
    optional("BACEN_BATCH_HORIZON_MS", v -> b.batchHorizon(millis("BACEN_BATCH_HORIZON_MS")));
    optional("BACEN_QUOTA_SIGNAL", v -> b.quotaSignal(v.trim().equalsIgnoreCase("none") ? null : v));
    optional("BACEN_MAX_IN_FLIGHT", v -> b.maxInFlight(whole("BACEN_MAX_IN_FLIGHT", 0)));
    optional("BACEN_PERMIT_LEASE_MS", v -> b.permitLease(millis("BACEN_PERMIT_LEASE_MS")));
    optional("BACEN_PROVIDER_TIMEOUT_MS", v -> b.providerTimeout(millis("BACEN_PROVIDER_TIMEOUT_MS")));
    optional("BACEN_QUOTA_HEADERS", v -> b.quotaHeaders(quotaHeaders(v)));
    if (b.maxWait.compareTo(b.callTimeout) >= 0) {
      throw new IllegalStateException("BACEN_MAX_WAIT_MS and BACEN_CALL_TIMEOUT_MS disagree: "
          + ThrottleSettings.maxWaitAboveCallTimeout(b.maxWait, b.callTimeout));
    }
    return b.build();
  }

  private String required(String name) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(name + " must be set, but was " + (v == null ? "missing" : "blank"));
    }
    return v.trim();
  }

  /** Applies the variable, trimmed, when it is set. */
  private void optional(String name, Consumer<String> use) {
    String v = env.get(name);
    if (v != null) {
      set(name, v, use);
    }
  }

  /**
   * Applies a value, trimmed; a rejection names the variable and the value as it was given ({@code shown}, null for
   * a rule over several variables).
   */
  private void set(String name, String shown, Consumer<String> use) {
    try {
      use.accept(shown == null ? null : shown.trim());
    } catch (IllegalArgumentException e) {
      if (String.valueOf(e.getMessage()).startsWith(name)) {
        throw e; // already names the variable
      }
      String safe = name.equals("REDIS_URL") ? RedisAddress.redacted(shown) : shown;
      String was = shown == null ? "" : ", was '" + safe + "'";
      throw new IllegalArgumentException(name + " is invalid" + was + ": " + e.getMessage(), e);
    }
  }

  private static URI uri(String value) {
    try {
      return new URI(value);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URL (" + e.getReason() + ")");
    }
  }

  private double number(String name, double fallback) {
    return parsed(name, fallback, Double::parseDouble, "a number");
  }

  private int whole(String name, int fallback) {
    return parsed(name, fallback, Integer::parseInt, "a whole number");
  }

  private Duration millis(String name) {
    return millisOr(name, null);
  }

  private Duration millisOr(String name, Duration fallback) {
    return parsed(name, fallback, v -> Duration.ofMillis(Long.parseLong(v)), "a whole number of milliseconds");
  }

  /** The variable read by {@code parse}, or {@code fallback} when it is not set. */
  private <T> T parsed(String name, T fallback, Function<String, T> parse, String what) {
    String v = env.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return parse.apply(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be " + what + ", but was '" + v + "'");
    }
  }

  private static boolean switchedOn(String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "on", "true" -> true;
      case "off", "false" -> false;
      default -> throw new IllegalArgumentException("must be on or off");
    };
  }

  private static QuotaHeaders quotaHeaders(String v) {
    try {
      return QuotaHeaders.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("must be IETF or X_RATELIMIT");
    }
  }

  private static Priority priority(String v) {
    try {
      return Priority.valueOf(v.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("must be INTERACTIVE or BATCH");
    }
  }

  private RedisUnavailablePolicy policy() {
    String v = env.get("BACEN_REDIS_UNAVAILABLE");
    if (v == null) {
      return b.redisUnavailable;
    }
    try {
      return RedisUnavailablePolicy.valueOf(v.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("BACEN_REDIS_UNAVAILABLE must be FAIL_CLOSED or LOCAL_FALLBACK, but was '"
          + v + "'");
    }
  }
}
