package io.pixquota.bacen.dict;

import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** New end-to-end ids of the participant's payments: {@code E} + ISPB + {@code yyyyMMddHHmm} (UTC) + 11 characters. */
final class EndToEndIds {
  private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyyMMddHHmm").withZone(ZoneOffset.UTC);
  private static final char[] ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  private EndToEndIds() {}

  static String next(String ispb, Instant now) {
    StringBuilder id = new StringBuilder(32).append('E').append(ispb).append(MINUTE.format(now));
    for (int i = 0; i < 11; i++) {
      id.append(ALNUM[RANDOM.nextInt(ALNUM.length)]);
    }
    return id.toString();
  }

  /** @throws IllegalArgumentException for anything but an end-to-end id (32 characters), never showing it whole */
  static String check(String e2eid) {
    if (e2eid == null || !e2eid.matches("E[0-9A-Z]{8}[0-9]{12}[0-9A-Za-z]{11}")) {
      throw new IllegalArgumentException("endToEndId must be E + ISPB (8) + yyyyMMddHHmm + 11 letters or digits, "
          + "but was " + (e2eid == null ? "null" : "'" + e2eid.substring(0, Math.min(9, e2eid.length())) + "...' ("
          + e2eid.length() + " characters)"));
    }
    return e2eid;
  }
}
