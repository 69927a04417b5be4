package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.plan.ProviderPolicy;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A provider's published quota as a quota declares it ({@code pixquota.quotas.<name>.provider-quota}), read into the
 * planner's {@link ProviderPolicy}: {@code <burst> + <rate>/s} for a token bucket (API Pix: {@code 10 + 10/s}), or
 * {@code <calls> per <window>} for a sliding window ({@code 600 per 1m}; the window in {@code ms}, {@code s},
 * {@code m} or {@code h}). Nothing is asked of the provider.
 */
final class DeclaredQuota {
  private static final Pattern BUCKET = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*\\+\\s*(\\d+(?:\\.\\d+)?)\\s*/\\s*s");
  private static final Pattern WINDOW = Pattern.compile("(\\d+)\\s+per\\s+(\\d+)\\s*(ms|s|m|h)");

  private DeclaredQuota() {}

  /**
   * The policy {@code text} declares.
   *
   * @throws IllegalArgumentException naming the value and the forms it may take
   */
  static ProviderPolicy parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher bucket = BUCKET.matcher(t);
    if (bucket.matches()) {
      double burst = Double.parseDouble(bucket.group(1));
      double rate = Double.parseDouble(bucket.group(2));
      if (burst >= 1 && rate > 0) {
        return ProviderPolicy.tokenBucket(burst, rate, Duration.ofSeconds(1));
      }
    }
    Matcher window = WINDOW.matcher(t);
    if (window.matches()) {
      long calls = Long.parseLong(window.group(1));
      long amount = Long.parseLong(window.group(2));
      Duration length = switch (window.group(3)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      };
      if (calls >= 2 && !length.isZero()) {
        return ProviderPolicy.slidingWindow(calls, length);
      }
    }
    throw new IllegalArgumentException("'" + text + "' is not a quota: write '<burst> + <rate>/s' (a token bucket, "
        + "burst >= 1 and rate > 0, e.g. '10 + 10/s') or '<calls> per <window>' (a sliding window, at least 2 calls, "
        + "e.g. '600 per 1m')");
  }
}
