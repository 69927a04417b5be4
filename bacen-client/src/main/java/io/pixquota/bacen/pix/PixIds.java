package io.pixquota.bacen.pix;

import java.util.regex.Pattern;

/** Checks of endToEndId and txid formats, before any I/O. Messages never carry a whole id. */
final class PixIds {
  private static final Pattern END_TO_END_ID = Pattern.compile("E[0-9A-Z]{8}[0-9]{12}[a-zA-Z0-9]{11}");
  private static final Pattern TXID = Pattern.compile("[a-zA-Z0-9]{26,35}");

  private PixIds() {}

  /** The first 9 characters (E + ISPB) at most: enough to find the caller's bug, not the payment. */
  static String mask(String id) {
    if (id == null) {
      return "null";
    }
    return id.length() <= 9 ? id : id.substring(0, 9) + "...";
  }

  static String checkEndToEndId(String id) {
    if (id == null) {
      throw new NullPointerException("endToEndId cannot be null");
    }
    if (id.length() != 32) {
      throw new IllegalArgumentException("endToEndId must have 32 characters, but '" + mask(id) + "' has "
          + id.length());
    }
    if (!END_TO_END_ID.matcher(id).matches()) {
      throw new IllegalArgumentException("endToEndId must be E + ISPB (8 digits or capitals) + yyyyMMddHHmm + 11 "
          + "alphanumerics, but '" + mask(id) + "' is not");
    }
    return id;
  }

  static String checkTxid(String txid) {
    if (txid == null) {
      throw new NullPointerException("txid cannot be null");
    }
    if (!TXID.matcher(txid).matches()) {
      throw new IllegalArgumentException("txid must be 26 to 35 letters or digits, but '" + mask(txid) + "' is not");
    }
    return txid;
  }
}
