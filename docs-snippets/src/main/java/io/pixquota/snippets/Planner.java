package io.pixquota.snippets;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import java.time.Duration;
import org.redisson.api.RedissonClient;

/** The bucket planned from the provider's published quota and the jitter it must absorb. */
final class Planner {
  private Planner() {}

  static PixClient planned(PixClientConfig config, RedissonClient redisson) {
    // region plan
    ProviderPolicy provider = ProviderPolicy.tokenBucket(10, 10, Duration.ofSeconds(1)); // as the provider publishes it
    QuotaPlan plan = QuotaPlanner.plan(provider, Duration.ofMillis(100)); // J = 100 ms: 9.005 + 9.95/s
    PixClient pix = PixClient.builder(config).redisson(redisson).quotaPlan(plan).build();
    // endregion
    return pix;
  }
}
