package io.pixquota.throttle;

import io.pixquota.throttle.store.PermitPool;
import java.util.ArrayList;
import java.util.List;

/** A throttle's routes: its rules in order, then its default route; each request takes the first that matches. */
final class Routes {
  private final Route defaultRoute;
  private final List<Route> rules;

  Routes(Route defaultRoute, List<Route> rules) {
    this.defaultRoute = defaultRoute;
    this.rules = List.copyOf(rules);
  }

  /** The route of a request of this method and encoded path. */
  Route route(String method, String encodedPath) {
    for (Route rule : rules) {
      if (rule.matches(method, encodedPath)) {
        return rule;
      }
    }
    return defaultRoute;
  }

  /** The permit pools the routes hold permits of, each once (none: an empty list). */
  List<PermitPool> pools() {
    List<PermitPool> pools = new ArrayList<>();
    List<Route> all = new ArrayList<>(rules);
    all.add(0, defaultRoute);
    for (Route r : all) {
      PermitPool p = r.plan().pool();
      if (p != null && pools.stream().noneMatch(q -> q == p)) {
        pools.add(p);
      }
    }
    return pools;
  }
}
