package io.pixquota.throttle;

import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * How specific a route's {@link Match} is, and whether two matches may take the same request: what orders a
 * throttle's quotas and rules, whatever order they were given in. A request goes to the most specific route that
 * matches it: one naming a host before one for any host; then the one whose path has more literal characters (a
 * path given before none); then one naming a method before one for any. Two routes that may take the same request
 * and are equally specific are refused when the throttle is built: no order of declaration decides between them.
 *
 * <p>"May take the same request" is decided without running the expressions, conservatively: the hosts are the same
 * or one is any, the methods too, and the literal beginning of one path (what it must start with) begins the other's.
 * Two routes this calls apart never take the same request; two it does not may still never do so (then they must
 * differ in specificity, which a longer literal path gives).
 *
 * @param host     whether the match names a host
 * @param literals the literal characters of its path, -1 without a path
 * @param method   whether it names a method
 */
record Specificity(boolean host, int literals, boolean method) {
  /** The most specific first. */
  static final Comparator<Specificity> MOST_SPECIFIC_FIRST = Comparator.comparing(Specificity::host)
      .thenComparingInt(Specificity::literals).thenComparing(Specificity::method).reversed();

  private static final String META = ".[]{}()*+?^$|\\";

  static Specificity of(Match m) {
    return new Specificity(m.host() != null, m.path() == null ? -1 : literals(m.path()), m.method() != null);
  }

  /** Whether a request may match both: hosts, methods and the paths' literal beginnings agree. */
  static boolean mayOverlap(Match a, Match b) {
    if (a.host() != null && b.host() != null && !a.host().equals(b.host())) {
      return false;
    }
    if (a.method() != null && b.method() != null && !a.method().equalsIgnoreCase(b.method())) {
      return false;
    }
    if (a.path() == null || b.path() == null) {
      return true;
    }
    String pa = prefix(a.path());
    String pb = prefix(b.path());
    return pa.startsWith(pb) || pb.startsWith(pa);
  }

  /**
   * What every path the expression matches starts with: its characters up to the first that is not literal, less
   * the last one when a quantifier follows it; nothing when it has an alternative ({@code |}) anywhere.
   */
  static String prefix(Pattern p) {
    String s = p.pattern();
    if (s.indexOf('|') >= 0) {
      return "";
    }
    int i = 0;
    while (i < s.length() && META.indexOf(s.charAt(i)) < 0) {
      i++;
    }
    if (i < s.length() && i > 0 && "*?{".indexOf(s.charAt(i)) >= 0) {
      i--; // "ab?" may start "a"
    }
    return s.substring(0, i);
  }

  /**
   * The characters of the expression that match only themselves: outside classes ({@code [...]}) and counts
   * ({@code {...}}), not escaped, not made optional or repeated by a quantifier after them; none with an alternative.
   */
  static int literals(Pattern p) {
    String s = p.pattern();
    if (s.indexOf('|') >= 0) {
      return 0;
    }
    int count = 0;
    int depth = 0; // inside [...] or {...}
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\') {
        i++; // an escape: a class (\d) or an escaped character, counted as neither
      } else if (c == '[' || c == '{') {
        depth++;
      } else if ((c == ']' || c == '}') && depth > 0) {
        depth--;
      } else if (depth == 0 && META.indexOf(c) < 0) {
        boolean quantified = i + 1 < s.length() && "*?+{".indexOf(s.charAt(i + 1)) >= 0;
        count += quantified ? 0 : 1;
      }
    }
    return count;
  }

  @Override
  public String toString() {
    return (host ? "a host" : "any host") + ", " + (literals < 0 ? "any path"
        : literals + " literal characters of path") + ", " + (method ? "a method" : "any method");
  }
}
