package io.pixquota.throttle;

import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.util.ArrayList;
import java.util.List;

/**
 * A throttle's routes: its quotas and rules, the most specific first ({@link Specificity}), then its default route,
 * if it has one; each request takes the first that matches, and one that none matches passes through untouched.
 */
final class Routes {
  private final Route defaultRoute;
  private final List<Route> rules;

  /** @param defaultRoute null: requests no rule matches are not throttled */
  Routes(Route defaultRoute, List<Route> rules) {
    this.defaultRoute = defaultRoute;
    List<Route> sorted = new ArrayList<>(rules);
    sorted.sort(java.util.Comparator.comparing(r -> Specificity.of(r.match()), Specificity.MOST_SPECIFIC_FIRST));
    this.rules = List.copyOf(sorted);
  }

  /** Each route as logs name it, with what it takes, in the order a request tries them. */
  List<String> describe() {
    List<String> out = new ArrayList<>();
    for (Route r : rules) {
      out.add(Route.describe(r.name(), r.match()) + ": " + r.match());
    }
    if (defaultRoute != null) {
      out.add("the default route: any other request");
    }
    return out;
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
