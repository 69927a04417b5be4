package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.Limit;
import java.time.Duration;

/** What {@link ThrottleBuilder#build()} checks of each route before it builds: each failure names the route. */
final class RouteChecks {
  private RouteChecks() {}

  /** The route's cost fits in its bucket: else no call of it could ever be admitted. */
  static void fits(String route, double cost, TokenBucket bucket) {
    double capacity = bucket.limits().stream().mapToDouble(Limit::capacity).min().orElseThrow();
    if (cost > capacity) {
      throw new IllegalStateException(route + " costs " + cost + ", more than bucket '" + bucket.name()
          + "' can ever hold (capacity " + capacity + "): no such call could be admitted");
    }
  }

  /**
   * Two routes that may take the same request are not equally specific: else only the order they were given in would
   * decide, and a quota added above another (a catch-all above API Pix's) would take its calls silently.
   */
  static void distinct(String a, Match ma, String b, Match mb) {
    Specificity sa = Specificity.of(ma);
    if (sa.equals(Specificity.of(mb)) && Specificity.mayOverlap(ma, mb)) {
      throw new IllegalStateException(a + " (" + ma + ") and " + b + " (" + mb + ") may take the same requests, and "
          + "neither is more specific (both: " + sa + "); a request goes to the most specific route that matches it "
          + "(a host, then more literal characters of path, then a method), never to the one given first: name a "
          + "host, a longer path or a method for one of them, or make them one");
    }
  }

  /**
   * A permit is held from the slot's booking (at most the max wait) to the answer, or, for a call that gave up after
   * its send, until the provider can no longer be working on it: its lease must outlast the max wait plus the
   * provider's timeout, which must therefore be known.
   */
  static void leases(String route, PermitPool pool, Duration maxWait, Duration providerTimeout) {
    if (pool == null) {
      return;
    }
    if (providerTimeout == null) {
      throw new IllegalStateException(route + " holds permits of pool '" + pool.name() + "', but no providerTimeout "
          + "was given: how long the provider may keep working on a call after it was sent, which a permit must "
          + "outlast (ThrottleBuilder.providerTimeout)");
    }
    Duration needed = maxWait.plus(providerTimeout);
    if (pool.lease().compareTo(needed) <= 0) {
      throw new IllegalStateException(route + ": pool '" + pool.name() + "' leases its permits for "
          + pool.lease().toMillis() + " ms, not longer than the max wait " + maxWait.toMillis() + " ms plus the "
          + "provider's timeout " + providerTimeout.toMillis() + " ms; a permit is held from the slot's booking until "
          + "the provider can no longer be working on the call, so a shorter lease would let the pool give it to "
          + "another call while the provider still counts it");
    }
  }
}
