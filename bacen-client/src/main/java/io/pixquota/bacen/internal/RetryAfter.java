package io.pixquota.bacen.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/** Parses a Retry-After header: whole seconds or an HTTP date. Anything else (negative, garbage) is ignored. */
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

  private static Duration min(Duration d) {
    return d.compareTo(MAX) > 0 ? MAX : d;
  }
}
