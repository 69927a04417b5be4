package io.pixquota.bacen.dict;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * End users' pseudonyms, as the DICT spec suggests: {@code PI-PayerId} is the hex HMAC-SHA-256 of the user's own id
 * (a CPF, an account) with a key only the participant knows, so the same user always gets the same id and no CPF
 * reaches DICT, Redis or a log. The mirror's bucket of a user is named by the first 16 bytes of the same HMAC, in
 * base64url (22 characters: a small key for millions of users). Threadsafe.
 */
final class PayerIds {
  private final SecretKeySpec key;

  PayerIds(String secret) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** The pseudonym: {@code hex} for {@code PI-PayerId}, {@code bucket} for the mirror's key. */
  record Pseudonym(String hex, String bucket) {
    @Override
    public String toString() {
      return "Pseudonym{" + bucket.substring(0, 4) + "...}"; // even a pseudonym is not for logs
    }
  }

  /** @throws IllegalArgumentException for a blank id, before any I/O */
  Pseudonym of(String payerId) {
    if (payerId == null || payerId.isBlank()) {
      throw new IllegalArgumentException("payerId must not be blank");
    }
    if (payerId.length() > 256) {
      throw new IllegalArgumentException("payerId must be at most 256 characters, but had " + payerId.length());
    }
    byte[] mac;
    try {
      Mac hmac = Mac.getInstance("HmacSHA256");
      hmac.init(key);
      mac = hmac.doFinal(payerId.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
    byte[] head = new byte[16];
    System.arraycopy(mac, 0, head, 0, 16);
    return new Pseudonym(HexFormat.of().formatHex(mac), Base64.getUrlEncoder().withoutPadding().encodeToString(head));
  }
}
