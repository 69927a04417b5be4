package io.pixquota.throttle.support;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Parses a Retry-After header (whole seconds or an HTTP date) and the reset of an IETF RateLimit header. Anything
 * else (negative, garbage) is ignored.
 */
public final class RetryAfter {
  /** Longer than this is not a retry hint but a refusal: one day. */
  static final Duration MAX = Duration.ofDays(1);

  private RetryAfter() {}

  /**
   * @return the wait the header asks for, rounded up to whole seconds and capped at one day; null when absent or
   *     not understood
   */
  public static Duration parse(String header, Instant now) {
    if (header == null || header.isBlank()) {
      return null;
    }
    String v = header.trim();
    if (v.chars().allMatch(Character::isDigit)) {
      try {
        return min(Duration.ofSeconds(Long.parseLong(v)));
      } catch (NumberFormatException | ArithmeticException tooLong) {
        return MAX;
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at);
      if (d.isNegative()) {
        return Duration.ZERO;
      }
      long seconds = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
      return min(Duration.ofSeconds(seconds));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * The reset of an IETF {@code RateLimit} header ({@code "policy";r=<remaining>;t=<seconds>}) that says nothing is
   * left ({@code r=0}): how long until the provider's quota has room again, capped at one day; null otherwise.
   */
  public static Duration fromRateLimit(String header) {
    if (header == null) {
      return null;
    }
    Long remaining = null;
    Long reset = null;
    for (String item : header.split(";")) {
      String[] kv = item.trim().split("=", 2);
      if (kv.length == 2 && kv[1].trim().matches("[0-9]{1,12}")) {
        long v = Long.parseLong(kv[1].trim());
        switch (kv[0].trim()) {
          case "r" -> remaining = v;
          case "t" -> reset = v;
          default -> { }
        }
      }
    }
    return remaining != null && remaining == 0 && reset != null ? min(Duration.ofSeconds(reset)) : null;
  }

  private static Duration min(Duration d) {
    return d.compareTo(MAX) > 0 ? MAX : d;
  }
}
