package io.pixquota.harness;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** The Redisson clients a scenario opens, in two flavours. */
public final class Redissons {
  private Redissons() {}

  /** Redisson's defaults and nothing else: what every limiter of a comparison gets alike. */
  public static RedissonClient defaults(String url) {
    Config config = new Config();
    config.useSingleServer().setAddress(url);
    return Redisson.create(config);
  }

  /** Small pools, short timeouts, no retries that would hide a fault: for tests and single-purpose children. */
  public static Config smallPool(String url) {
    Config config = new Config();
    config.useSingleServer().setAddress(url).setConnectionMinimumIdleSize(2).setConnectionPoolSize(16)
        .setSubscriptionConnectionMinimumIdleSize(0).setSubscriptionConnectionPoolSize(1)
        .setSubscriptionsPerConnection(100).setTimeout(3000)
        .setRetryAttempts(0);
    config.setNettyThreads(4);
    return config;
  }
}
