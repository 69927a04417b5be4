package io.pixquota.throttle;

import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.UnlimitedBucket;
import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;

/**
 * A builder's quotas and rules as given, checked, and made into a throttle's {@link Routes}: one job of
 * {@link ThrottleBuilder}'s. Not threadsafe, as builders are not.
 */
final class QuotaRules {
  /** A quota (named) or rule as given: its requests go to {@code bucket} at {@code cost}, holding {@code pool}. */
  private record Rule(String name, Match match, TokenBucket bucket, double cost, PermitPool pool) {}

  private final List<Rule> rules = new ArrayList<>();
  private final Set<String> names = new HashSet<>();

  /** @param bucket null: a pool alone, its bucket made at build on the throttle's clock */
  void add(String name, Match match, TokenBucket bucket, double cost, PermitPool pool) {
    Objects.requireNonNull(match, "match cannot be null");
    if (name != null && !names.add(Checks.keyName("quota name", name))) {
      throw new IllegalArgumentException("quota name must be unique, but '" + name + "' was given twice");
    }
    rules.add(new Rule(name, match, bucket, Checks.tokens("cost", cost), pool));
  }

  /** Each route's cost fits its bucket, and each pool's lease outlasts a call's wait and the provider's timeout. */
  void check(TokenBucket defaultBucket, PermitPool defaultPool, Duration maxWait, Duration providerTimeout) {
    if (defaultBucket != null) {
      RouteChecks.fits("requests no rule matches", 1, defaultBucket);
      RouteChecks.leases("requests no rule matches", defaultPool, maxWait, providerTimeout);
    } else if (defaultPool != null) {
      throw new IllegalStateException("defaultPool needs a default bucket (Throttle.builder(bucket)): without one, "
          + "requests no quota matches pass through untouched; give the pool to a quota instead");
    }
    for (int i = 0; i < rules.size(); i++) {
      for (int j = i + 1; j < rules.size(); j++) {
        RouteChecks.distinct(Route.describe(rules.get(i).name(), rules.get(i).match()), rules.get(i).match(),
            Route.describe(rules.get(j).name(), rules.get(j).match()), rules.get(j).match());
      }
    }
    for (Rule r : rules) {
      if (r.bucket() != null) {
        RouteChecks.fits(Route.describe(r.name(), r.match()), r.cost(), r.bucket());
      }
      RouteChecks.leases(Route.describe(r.name(), r.match()), r.pool(), maxWait, providerTimeout);
    }
  }

  /**
   * The routes: each bucket through {@code wrap} once however many routes share it (the local fallback's decorator),
   * a pool alone on an {@link UnlimitedBucket} named after it.
   */
  Routes routes(TokenBucket defaultBucket, PermitPool defaultPool, Map<Integer, Double> responseCosts,
      UnaryOperator<TokenBucket> wrap, TimeSource time, Map<TokenBucket, TokenBucket> wrapped,
      BiConsumer<String, String> quotaOf) {
    Route defaultRoute = defaultBucket == null ? null
        : route(null, Match.any(), defaultBucket, 1, defaultPool, responseCosts, wrap, wrapped);
    List<Route> built = new ArrayList<>();
    for (Rule r : rules) {
      TokenBucket bucket = r.bucket() != null ? r.bucket() : new UnlimitedBucket(r.pool().name(), time);
      if (r.name() != null) {
        quotaOf.accept(bucket.name(), r.name()); // its meters' quota tag
      }
      built.add(route(r.name(), r.match(), bucket, r.cost(), r.pool(), responseCosts, wrap, wrapped));
    }
    return new Routes(defaultRoute, built);
  }

  private static Route route(String name, Match match, TokenBucket bucket, double cost, PermitPool pool,
      Map<Integer, Double> responseCosts, UnaryOperator<TokenBucket> wrap, Map<TokenBucket, TokenBucket> wrapped) {
    TokenBucket b = bucket instanceof UnlimitedBucket ? bucket
        : wrapped.computeIfAbsent(bucket, k -> pool != null ? k : wrap.apply(k));
    return new Route(name, match, new CallPlan(Route.describe(name, match),
        List.of(new CallPlan.Charge(b, cost, responseCosts)), pool));
  }

  /** The buckets as given, the default first (if any), each once. */
  List<TokenBucket> given(TokenBucket defaultBucket) {
    Set<TokenBucket> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<TokenBucket> distinct = new ArrayList<>();
    if (defaultBucket != null && seen.add(defaultBucket)) {
      distinct.add(defaultBucket);
    }
    for (Rule r : rules) {
      if (r.bucket() != null && seen.add(r.bucket())) {
        distinct.add(r.bucket());
      }
    }
    return distinct;
  }
}
