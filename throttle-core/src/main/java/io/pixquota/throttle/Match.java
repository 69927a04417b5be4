package io.pixquota.throttle;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which requests a quota takes: a host (null: any), a method (null: any) and a regular expression the whole encoded
 * path must match (null: any). Start from {@link #any()} or {@link #host(String)}; each wither checks its value at
 * once and names it in the error.
 *
 * <pre>{@code
 * Match.host("pix.example.com").path("/api/v2/pix/.*")
 * Match.host("dict.example.com").method("GET").path("/api/v2/entries/.*")
 * }</pre>
 *
 * @param host   the request's host, lower case, no scheme, port or path; null: any
 * @param method the request's method, as sent; null: any
 * @param path   what the whole encoded path must match; null: any
 */
public record Match(String host, String method, Pattern path) {
  private static final Pattern HOST = Pattern.compile("[a-z0-9]([a-z0-9.-]*[a-z0-9])?|\\[[0-9a-f:.]+\\]");

  public Match {
    if (host != null) {
      host = host.toLowerCase(Locale.ROOT);
      if (!HOST.matcher(host).matches()) {
        throw new IllegalArgumentException("host must be a host name or address without scheme, port or path, "
            + "but was '" + host + "'");
      }
    }
    if (method != null && (method.isBlank() || !method.equals(method.strip()))) {
      throw new IllegalArgumentException("method must be a method name or null for any, but was '" + method + "'");
    }
  }

  /** Every request: what a throttle built with a default bucket does with requests no quota matches. */
  public static Match any() {
    return new Match(null, null, null);
  }

  /** Requests to {@code host}, any method and path. */
  public static Match host(String host) {
    return new Match(Objects.requireNonNull(host, "host cannot be null"), null, null);
  }

  /** These requests, with this method only. */
  public Match method(String m) {
    return new Match(host, Objects.requireNonNull(m, "method cannot be null"), path);
  }

  /** These requests, whose whole encoded path matches {@code regex}. */
  public Match path(String regex) {
    Objects.requireNonNull(regex, "path cannot be null");
    try {
      return new Match(host, method, Pattern.compile(regex));
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("path must be a regular expression, but was '" + regex + "': "
          + e.getDescription(), e);
    }
  }

  /** Whether a request of this host (lower case; null: unknown), method and encoded path is one of these. */
  public boolean matches(String requestHost, String requestMethod, String encodedPath) {
    return (host == null || host.equals(requestHost)) && (method == null || method.equalsIgnoreCase(requestMethod))
        && (path == null || path.matcher(encodedPath).matches());
  }

  @Override
  public String toString() {
    return (host == null ? "any host" : host) + (method == null ? "" : " " + method)
        + (path == null ? "" : " " + path.pattern());
  }
}
