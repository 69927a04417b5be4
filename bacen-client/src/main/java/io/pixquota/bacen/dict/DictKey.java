package io.pixquota.bacen.dict;

import java.util.regex.Pattern;

/**
 * A Pix key as DICT knows it, checked before any I/O: a CPF (11 digits, check digits valid), a CNPJ (14 digits,
 * check digits valid), a phone ({@code +} and 8 to 15 digits, E.164), an e-mail (at most 77 characters, lower case)
 * or an EVP (a random UUID, lower case). {@link #toString()} shows only the type and the last characters: a key is a
 * person's data.
 */
public record DictKey(String value, Type type) {
  /** The key types of DICT. */
  public enum Type { CPF, CNPJ, PHONE, EMAIL, EVP }

  private static final Pattern EVP = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final Pattern EMAIL = Pattern.compile("[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9-]+(\\.[a-z0-9-]+)+");
  private static final Pattern PHONE = Pattern.compile("\\+[1-9][0-9]{7,14}");
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");

  /**
   * The key's type, from its form.
   *
   * @throws IllegalArgumentException naming the key's length and what it is not, never the key itself
   */
  public static DictKey parse(String key) {
    if (key == null) {
      throw new NullPointerException("key cannot be null");
    }
    if (key.isEmpty() || key.length() > 77) {
      throw new IllegalArgumentException("key must be 1 to 77 characters, but was " + key.length());
    }
    if (EVP.matcher(key).matches()) {
      return new DictKey(key, Type.EVP);
    }
    if (key.indexOf('@') >= 0) {
      if (!EMAIL.matcher(key).matches()) {
        throw new IllegalArgumentException("key looks like an e-mail but is not one DICT accepts (lower case, "
            + "local@domain.tld)");
      }
      return new DictKey(key, Type.EMAIL);
    }
    if (key.startsWith("+")) {
      if (!PHONE.matcher(key).matches()) {
        throw new IllegalArgumentException("key looks like a phone but is not E.164 (+ and 8 to 15 digits)");
      }
      return new DictKey(key, Type.PHONE);
    }
    if (DIGITS.matcher(key).matches() && key.length() == 11) {
      if (!checkDigits(key, 9, new int[] {10, 9, 8, 7, 6, 5, 4, 3, 2}, new int[] {11, 10, 9, 8, 7, 6, 5, 4, 3, 2})) {
        throw new IllegalArgumentException("key has 11 digits but is not a CPF: its check digits are wrong");
      }
      return new DictKey(key, Type.CPF);
    }
    if (DIGITS.matcher(key).matches() && key.length() == 14) {
      if (!checkDigits(key, 12, new int[] {5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2},
          new int[] {6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2})) {
        throw new IllegalArgumentException("key has 14 digits but is not a CNPJ: its check digits are wrong");
      }
      return new DictKey(key, Type.CNPJ);
    }
    throw new IllegalArgumentException("key is not a CPF, a CNPJ, a phone (+E.164), an e-mail or an EVP (UUID)");
  }

  /** Modulo-11 check digits, as CPF and CNPJ compute them: the first over {@code n} digits, the second over n + 1. */
  private static boolean checkDigits(String digits, int n, int[] first, int[] second) {
    return digit(digits, first) == digits.charAt(n) - '0' && digit(digits, second) == digits.charAt(n + 1) - '0';
  }

  private static int digit(String digits, int[] weights) {
    int sum = 0;
    for (int i = 0; i < weights.length; i++) {
      sum += (digits.charAt(i) - '0') * weights[i];
    }
    int r = sum % 11;
    return r < 2 ? 0 : 11 - r;
  }

  @Override
  public String toString() {
    return type + " ..." + value.substring(Math.max(0, value.length() - 3));
  }
}
