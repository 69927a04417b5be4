package io.pixquota.throttle;

/**
 * Requests that {@code match} takes go to {@code plan}: a throttle's quota (named) or rule (unnamed), or its default
 * route.
 */
record Route(String name, Match match, CallPlan plan) {
  boolean matches(ThrottleRequest request) {
    return match.matches(request.host(), request.method(), request.encodedPath());
  }

  /** As logs and meters name the route: its quota's name or its rule, never a request's path (which holds ids). */
  static String describe(String name, Match match) {
    if (name != null) {
      return "quota '" + name + "'";
    }
    return match.path() == null && match.host() == null && match.method() == null ? "the default route"
        : "rule " + (match.host() == null ? "" : match.host() + " ") + (match.method() == null ? ""
        : match.method() + " ") + (match.path() == null ? "any path" : match.path().pattern());
  }
}
