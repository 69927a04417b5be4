package io.pixquota.throttle;

import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads a provider's remaining quota from an answer's headers, strictly ({@link QuotaHeaders}). */
final class QuotaHeaderReader {
  static final long MAX = 1_000_000_000L;
  private static final Pattern WHOLE = Pattern.compile("\\d{1,10}");
  /** One IETF item: a quoted policy name, then parameters; {@code r} is the remaining quota. */
  private static final Pattern ITEM =
      Pattern.compile("\\s*\"[^\"\\s]{1,64}\"((?:\\s*;\\s*[a-z]{1,8}=[^;,]{1,32})*)\\s*");
  private static final Pattern REMAINING = Pattern.compile(";\\s*r=([^;,]*)");

  /** What an answer said: {@code remaining} (-1: said nothing), or why it was not believed. */
  record Reading(long remaining, String ignoredBecause) {
    static final Reading NONE = new Reading(-1, null);

    static Reading ignored(String why) {
      return new Reading(-1, why);
    }
  }

  private QuotaHeaderReader() {}

  static Reading read(QuotaHeaders family, UnaryOperator<String> headers) {
    return switch (family) {
      case X_RATELIMIT -> whole(headers.apply("X-RateLimit-Remaining"));
      case IETF -> {
        String structured = headers.apply("RateLimit");
        yield structured != null ? ietf(structured) : whole(headers.apply("RateLimit-Remaining"));
      }
    };
  }

  private static Reading whole(String value) {
    if (value == null) {
      return Reading.NONE;
    }
    String v = value.trim();
    if (!WHOLE.matcher(v).matches() || Long.parseLong(v) > MAX) {
      return Reading.ignored("malformed");
    }
    return new Reading(Long.parseLong(v), null);
  }

  /** {@code "pix";r=9;t=1, "burst";r=3;t=10}: the fewest remaining over the items. */
  private static Reading ietf(String value) {
    if (value.length() > 1024) {
      return Reading.ignored("malformed");
    }
    long fewest = -1;
    for (String item : value.split(",", -1)) {
      Matcher m = ITEM.matcher(item);
      if (!m.matches()) {
        return Reading.ignored("malformed");
      }
      Matcher r = REMAINING.matcher(m.group(1));
      if (!r.find()) {
        return Reading.ignored("malformed");
      }
      Reading one = whole(r.group(1));
      if (one.ignoredBecause() != null || one.remaining() < 0) {
        return Reading.ignored("malformed");
      }
      fewest = fewest < 0 ? one.remaining() : Math.min(fewest, one.remaining());
    }
    return new Reading(fewest, null);
  }
}
