package io.pixquota.bacen.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixNotFoundException;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Plan the bucket from the provider's own word: GET /policies/{policy} on the mock, then the planner. */
@ExtendWith(RedisExtension.class)
class SelfCalibrationTest {

  @Test
  void readsTheProvidersBucketAndPlansFromIt(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(20, 5, 1000)).build())) {
      PixClientConfig config = PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
          .bucketName(redis.keyPrefix().replace(":", "-") + "cal").build();
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      ProviderPolicy policy;
      try (PixClient probe = PixClient.builder(config).redisson(redis.newRedisson()).build()) {
        policy = probe.getPolicy("pix");
        assertThatThrownBy(() -> probe.getPolicy("nope")).isInstanceOf(PixNotFoundException.class);
        assertThatThrownBy(() -> probe.getPolicy("../admin")).isExactlyInstanceOf(IllegalArgumentException.class);
      }
      assertThat(policy).isEqualTo(ProviderPolicy.tokenBucket(20, 5, Duration.ofSeconds(1)));
      QuotaPlan plan = QuotaPlanner.plan(policy, Duration.ofMillis(200));
      assertThat(plan.ratePerSecond()).isCloseTo(5 * 0.995, within(1e-9));
      assertThat(plan.capacity()).isCloseTo(20 - 4.975 * 0.2, within(1e-9));
      try (PixClient pix = PixClient.builder(config).redisson(redis.newRedisson()).quotaPlan(plan)
          .meterRegistry(registry).build()) {
        for (int i = 0; i < 19; i++) {
          pix.getPix("E12345678202611301200ABCDEFGHIJK");
        }
        assertThat(registry.get("bacen.throttle.wait").timer().count()).isEqualTo(19);
        assertThat(registry.get("bacen.throttle.margin.exceeded").counter().count()).isZero();
      }
      assertThat(mock.stats("demo", false).get("refused")).isEqualTo(0L);
      assertThat(mock.stats("demo", false).get("accepted")).as("the policy query spends no quota").isEqualTo(19L);
    }
  }
}
