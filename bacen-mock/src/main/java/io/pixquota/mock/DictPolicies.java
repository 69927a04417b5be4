package io.pixquota.mock;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The DICT's rate-limiting policies for {@code getEntry}, as the judge enforces them: each a token bucket of a scope
 * (USER, keyed by {@code PI-PayerId}; PSP, the participant), charged after the answer by its counting rule. Two
 * tables: the spec's v1.2.0 ({@link #v120()}) and the later counting integrators describe ({@link #later(char)}:
 * every key type, a person-type split at the user scope, a 404 costing 20 there and 3 at the participant's anti-scan
 * bucket, whose size is the participant's category A..H). Every number is configuration: the live
 * {@code GET /policies} answer is the truth of a real DICT.
 *
 * @param counting "v1.2.0" or "later"
 * @param category the participant's category, A..H (later counting), or '-'
 * @param policies user anti-scan, participant anti-scan, entries read
 */
public record DictPolicies(String counting, char category, List<Policy> policies) {
  public static final String USER_ANTISCAN = "ENTRIES_READ_USER_ANTISCAN";
  public static final String PARTICIPANT_ANTISCAN = "ENTRIES_READ_PARTICIPANT_ANTISCAN";
  public static final String ENTRIES_READ = "ENTRIES_READ";

  /** The scope a policy's buckets are kept by. */
  public enum Scope { USER, PSP }

  /**
   * One policy: its bucket (legal persons' at the user scope in the later counting) and what an answer costs.
   *
   * @param emailAndPhoneOnly whether only EMAIL and PHONE keys count (v1.2.0's anti-scan policies)
   * @param cost404           what a 404 costs; a 200 costs 1, a 500 nothing
   * @param everyAnswer       whether any other answer (a 400, a 429) costs 1 too, as "any status except 500" reads;
   *                          else it costs nothing (v1.2.0's anti-scan policies count 200 and 404 only)
   * @param credit            what a settled payment gives back (legal persons: {@code creditLegal})
   */
  public record Policy(String name, Scope scope, double capacity, double refillTokens, long refillPeriodSeconds,
      double capacityLegal, double refillTokensLegal, boolean emailAndPhoneOnly, double cost404, boolean everyAnswer,
      double credit, double creditLegal) {
    public Policy {
      Objects.requireNonNull(name, "name cannot be null");
      if (!(capacity >= 1) || !(refillTokens > 0) || refillPeriodSeconds < 1) {
        throw new IllegalArgumentException("policy " + name + ": capacity >= 1, refill > 0 and a period >= 1 s, "
            + "but was " + capacity + ", " + refillTokens + " per " + refillPeriodSeconds + " s");
      }
    }

    /** What an answer of this status costs this policy. */
    public double cost(int status) {
      return switch (status) {
        case 200 -> 1;
        case 404 -> cost404;
        case 500 -> 0;
        default -> everyAnswer ? 1 : 0;
      };
    }

    /** Whether a lookup of a key of this type counts against this policy. */
    public boolean applies(String keyType) {
      return !emailAndPhoneOnly || keyType.equals("EMAIL") || keyType.equals("PHONE");
    }

    double capacity(boolean legal) {
      return legal ? capacityLegal : capacity;
    }

    /** Tokens per second, for a natural or a legal person. */
    double ratePerSecond(boolean legal) {
      return (legal ? refillTokensLegal : refillTokens) / refillPeriodSeconds;
    }

    double credit(boolean legal) {
      return legal ? creditLegal : credit;
    }
  }

  /** The spec's v1.2.0: user 50 at 1 per 3 min, participant anti-scan 5000 at 1000/min, entries read 120000. */
  public static DictPolicies v120() {
    return new DictPolicies("v1.2.0", '-', List.of(
        new Policy(USER_ANTISCAN, Scope.USER, 50, 1, 180, 50, 1, true, 2, false, 1, 1),
        new Policy(PARTICIPANT_ANTISCAN, Scope.PSP, 5000, 1000, 60, 5000, 1000, true, 0, false, 1, 1),
        new Policy(ENTRIES_READ, Scope.PSP, 120_000, 24_000, 60, 120_000, 24_000, false, 1, true, 0, 0)));
  }

  /**
   * The later counting: the user policy on every key type, natural persons 100 at 2/min and legal ones 1000 at
   * 20/min, a 404 costing 20 there and 3 at the participant's anti-scan bucket, a payment giving back 1 (natural) or
   * 2 (legal); the anti-scan bucket sized by the participant's category. Every answer but a 500 costs (a refused
   * lookup too, at 1: a client that keeps asking keeps its buckets empty, the "lookups lost for hours" integrators
   * report); the judge's reading, an option of no real DICT.
   *
   * @param category A (largest) .. H (smallest)
   */
  public static DictPolicies later(char category) {
    double[] size = categorySize(category);
    return new DictPolicies("later", Character.toUpperCase(category), List.of(
        new Policy(USER_ANTISCAN, Scope.USER, 100, 2, 60, 1000, 20, false, 20, true, 1, 2),
        new Policy(PARTICIPANT_ANTISCAN, Scope.PSP, size[0], size[1], 60, size[0], size[1], false, 3, true, 1, 1),
        new Policy(ENTRIES_READ, Scope.PSP, 120_000, 24_000, 60, 120_000, 24_000, false, 1, true, 0, 0)));
  }

  /**
   * The participant anti-scan bucket of a category, {capacity, tokens per minute}: A 50000 at 25000 ... H 50 at 2,
   * the ends as integrators quote them and the steps between them illustrative.
   */
  static double[] categorySize(char category) {
    return switch (Character.toUpperCase(category)) {
      case 'A' -> new double[] {50_000, 25_000};
      case 'B' -> new double[] {20_000, 10_000};
      case 'C' -> new double[] {10_000, 5_000};
      case 'D' -> new double[] {5_000, 2_500};
      case 'E' -> new double[] {1_000, 500};
      case 'F' -> new double[] {250, 25};
      case 'G' -> new double[] {100, 5};
      case 'H' -> new double[] {50, 2};
      default -> throw new IllegalArgumentException("category must be one of A..H, but was '" + category + "'");
    };
  }

  /** {@code v1.2.0} or {@code later:<category>}. */
  public static DictPolicies parse(String counting) {
    String c = counting.trim().toLowerCase(Locale.ROOT);
    if (c.equals("v1.2.0")) {
      return v120();
    }
    if (c.matches("later:[a-h]")) {
      return later(c.charAt(6));
    }
    throw new IllegalArgumentException("DICT counting must be v1.2.0 or later:<category A..H>, but was '"
        + counting + "'");
  }

  /** The policy of this name, or null. */
  public Policy policy(String name) {
    for (Policy p : policies) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "DICT " + counting + (category == '-' ? "" : " (category " + category + ")");
  }
}
