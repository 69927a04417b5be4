package io.pixquota.throttle;

import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.util.ArrayList;
import java.util.List;

/**
 * A throttle's routes: its quotas and rules in the order given, then its default route, if it has one; each request
 * takes the first that matches, and one that none matches passes through untouched.
 */
final class Routes {
  private final Route defaultRoute;
  private final List<Route> rules;

  /** @param defaultRoute null: requests no rule matches are not throttled */
  Routes(Route defaultRoute, List<Route> rules) {
    this.defaultRoute = defaultRoute;
    this.rules = List.copyOf(rules);
  }

  /** The route of this request; null: none takes it. */
  Route route(ThrottleRequest request) {
    for (Route rule : rules) {
      if (rule.matches(request)) {
        return rule;
      }
    }
    return defaultRoute;
  }

  /** The permit pools the routes hold permits of, each once (none: an empty list). */
  List<PermitPool> pools() {
    List<PermitPool> pools = new ArrayList<>();
    List<Route> all = new ArrayList<>(rules);
    if (defaultRoute != null) {
      all.add(0, defaultRoute);
    }
    for (Route r : all) {
      PermitPool p = r.plan().pool();
      if (p != null && pools.stream().noneMatch(q -> q == p)) {
        pools.add(p);
      }
    }
    return pools;
  }

  /** Prepares the stores of {@code buckets} and of the routes' pools. */
  void preload(List<TokenBucket> buckets) throws StoreUnavailableException, InterruptedException {
    for (TokenBucket b : buckets) {
      b.preload();
    }
    for (PermitPool p : pools()) {
      p.preload();
    }
  }
}
