package io.pixquota.throttle;

import java.util.regex.Pattern;

/**
 * Requests whose method (null: any) and encoded path (null: any) match take {@code plan}: the first matching rule of
 * a throttle, else its default route.
 */
record Route(String method, Pattern path, CallPlan plan) {
  boolean matches(String requestMethod, String encodedPath) {
    return (method == null || method.equalsIgnoreCase(requestMethod))
        && (path == null || path.matcher(encodedPath).matches());
  }

  /** As logs name the route: its rule, never a request's path (which holds ids). */
  static String describe(String method, Pattern path) {
    return path == null ? "the default route" : "rule " + (method == null ? "" : method + " ") + path;
  }
}
