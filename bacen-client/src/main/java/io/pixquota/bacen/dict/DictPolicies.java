package io.pixquota.bacen.dict;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The policies a DICT lookup is subject to, as the SDK mirrors them. Two tables, each a starting point that
 * configuration and the provider's own {@code GET /policies} override: the spec's v1.2.0 ({@link #v120()}) and the
 * later counting integrators describe ({@link #later(char)}). Numbers are configuration, not code: the live
 * {@code GET /policies} answer is the truth at run time (docs/configuration.md, "DICT").
 *
 * @param counting "v1.2.0" or "later:&lt;category&gt;"
 */
public record DictPolicies(String counting, List<DictPolicy> policies) {
  public static final String USER_ANTISCAN = "ENTRIES_READ_USER_ANTISCAN";
  public static final String PARTICIPANT_ANTISCAN = "ENTRIES_READ_PARTICIPANT_ANTISCAN";
  public static final String ENTRIES_READ = "ENTRIES_READ";

  private static final Set<DictKey.Type> EMAIL_AND_PHONE = EnumSet.of(DictKey.Type.EMAIL, DictKey.Type.PHONE);
  private static final Set<DictKey.Type> ALL = EnumSet.allOf(DictKey.Type.class);

  public DictPolicies {
    policies = List.copyOf(policies);
    if (policies.isEmpty()) {
      throw new IllegalArgumentException("a DICT table needs at least one policy");
    }
    if (policies.stream().filter(p -> p.scope() == DictPolicy.Scope.USER).count() > 1) {
      throw new IllegalArgumentException("a DICT table has at most one USER-scope policy, the end user's bucket");
    }
    if (policies.stream().map(DictPolicy::name).distinct().count() < policies.size()) {
      throw new IllegalArgumentException("a DICT table names each policy once");
    }
  }

  /**
   * The spec v1.2.0's: user anti-scan (EMAIL and PHONE keys) 50 at 1 per 3 min, a 200 costing 1 and a 404 2, a
   * settled payment giving 1 back; participant anti-scan (EMAIL and PHONE) 5000 at 1000/min, a 200 costing 1, a 404
   * nothing, a payment giving 1 back; entries read 120000 at 24000/min, any answer but 500 costing 1.
   */
  public static DictPolicies v120() {
    Duration minute = Duration.ofMinutes(1);
    return new DictPolicies("v1.2.0", List.of(
        new DictPolicy(USER_ANTISCAN, DictPolicy.Scope.USER, 50, 1, Duration.ofMinutes(3), 50, 1, 1, 2, 1, 1,
            EMAIL_AND_PHONE),
        new DictPolicy(PARTICIPANT_ANTISCAN, DictPolicy.Scope.PSP, 5000, 1000, minute, 5000, 1000, 1, 0, 1, 1,
            EMAIL_AND_PHONE),
        new DictPolicy(ENTRIES_READ, DictPolicy.Scope.PSP, 120_000, 24_000, minute, 120_000, 24_000, 1, 1, 0, 0,
            ALL)));
  }

  /**
   * The later counting: the user policy on every key type, a natural person 100 at 2/min and a legal one 1000 at
   * 20/min, a 404 costing 20 there and 3 at the participant's anti-scan bucket, a payment giving back 1 (natural) or
   * 2 (legal); the participant's anti-scan bucket sized by its category (A: 50000 at 25000/min ... H: 50 at 2/min).
   *
   * @throws IllegalArgumentException for a category outside A..H
   */
  public static DictPolicies later(char category) {
    double[] size = categorySize(category);
    Duration minute = Duration.ofMinutes(1);
    return new DictPolicies("later:" + Character.toUpperCase(category), List.of(
        new DictPolicy(USER_ANTISCAN, DictPolicy.Scope.USER, 100, 2, minute, 1000, 20, 1, 20, 1, 2, ALL),
        new DictPolicy(PARTICIPANT_ANTISCAN, DictPolicy.Scope.PSP, size[0], size[1], minute, size[0], size[1], 1, 3,
            1, 1, ALL),
        new DictPolicy(ENTRIES_READ, DictPolicy.Scope.PSP, 120_000, 24_000, minute, 120_000, 24_000, 1, 1, 0, 0,
            ALL)));
  }

  /** A participant category's anti-scan bucket: {capacity, tokens per minute}. */
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

  /**
   * {@code v1.2.0} or {@code later:<category>}, as {@code DICT_POLICIES} and {@code pixquota.dict.policies} give it.
   *
   * @throws IllegalArgumentException naming what it accepts
   */
  public static DictPolicies parse(String counting) {
    String c = counting == null ? "" : counting.trim().toLowerCase(Locale.ROOT);
    if (c.equals("v1.2.0")) {
      return v120();
    }
    if (c.matches("later:[a-h]")) {
      return later(c.charAt(6));
    }
    throw new IllegalArgumentException("DICT policies must be v1.2.0 or later:<category A..H>, but was '"
        + counting + "'");
  }

  /** The policy of this name, or null. */
  public DictPolicy policy(String name) {
    for (DictPolicy p : policies) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  /**
   * This table with one policy's bucket resized (configuration, or the provider's {@code GET /policies}).
   *
   * @throws IllegalArgumentException for a policy the table does not have
   */
  public DictPolicies resized(String name, double capacity, double refillTokens, Duration period) {
    if (policy(name) == null) {
      List<String> names = new ArrayList<>();
      policies.forEach(p -> names.add(p.name()));
      throw new IllegalArgumentException("no DICT policy '" + name + "' in the " + counting + " table; it has "
          + names);
    }
    List<DictPolicy> out = new ArrayList<>();
    for (DictPolicy p : policies) {
      out.add(p.name().equals(name) ? p.resized(capacity, refillTokens, period) : p);
    }
    return new DictPolicies(counting, out);
  }
}
