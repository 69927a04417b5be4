package io.pixquota.mock;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The keys the judge's DICT knows, and their types. Registered: {@code user<N>@example.com},
 * {@code +55619999<NNNN>}, an EVP and a CPF derived from N, for N in 0..999, and any key added through
 * {@code POST /admin/dict/entries/{key}}; every other key answers 404. Threadsafe.
 */
final class DictDirectory {
  static final int REGISTERED = 1000;
  private static final Pattern EVP = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final Pattern EMAIL = Pattern.compile("[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9-]+(\\.[a-z0-9-]+)+");
  private static final Pattern PHONE = Pattern.compile("\\+[1-9][0-9]{7,14}");
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  private static final Set<String> KNOWN = known();

  private final Set<String> added = ConcurrentHashMap.newKeySet();

  /** The key's type (CPF, CNPJ, PHONE, EMAIL, EVP), or null when it is none of them. */
  static String type(String key) {
    if (key == null || key.isEmpty() || key.length() > 77) {
      return null;
    }
    if (EVP.matcher(key).matches()) {
      return "EVP";
    }
    if (EMAIL.matcher(key).matches()) {
      return "EMAIL";
    }
    if (PHONE.matcher(key).matches()) {
      return "PHONE";
    }
    if (DIGITS.matcher(key).matches()) {
      return key.length() == 11 ? "CPF" : key.length() == 14 ? "CNPJ" : null;
    }
    return null;
  }

  /** The N-th registered key of a type: what the demo's honest users look up. */
  static String registered(String type, int n) {
    return switch (type) {
      case "EMAIL" -> "user" + n + "@example.com";
      case "PHONE" -> String.format("+55619999%04d", n);
      case "EVP" -> UUID.nameUUIDFromBytes(("evp-" + n).getBytes(StandardCharsets.UTF_8)).toString();
      case "CPF" -> cpf(100_000_000 + n);
      default -> throw new IllegalArgumentException("no registered keys of type " + type);
    };
  }

  /** A CPF of these 9 digits and its two check digits. */
  static String cpf(int nine) {
    String base = String.format("%09d", nine);
    int d1 = check(base, 10);
    int d2 = check(base + d1, 11);
    return base + d1 + d2;
  }

  private static int check(String digits, int weight) {
    int sum = 0;
    for (int i = 0; i < digits.length(); i++) {
      sum += (digits.charAt(i) - '0') * (weight - i);
    }
    int r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  }

  boolean exists(String key) {
    return KNOWN.contains(key) || added.contains(key);
  }

  private static Set<String> known() {
    Set<String> keys = new HashSet<>();
    for (String type : new String[] {"EMAIL", "PHONE", "EVP", "CPF"}) {
      for (int n = 0; n < REGISTERED; n++) {
        keys.add(registered(type, n));
      }
    }
    return Set.copyOf(keys);
  }

  void add(String key) {
    added.add(key);
  }
}
