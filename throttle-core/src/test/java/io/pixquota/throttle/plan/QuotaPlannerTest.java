package io.pixquota.throttle.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuotaPlannerTest {
  private static final ProviderPolicy BACEN = ProviderPolicy.tokenBucket(10, 10, Duration.ofSeconds(1));

  @Test
  void bacensBucketWithAHundredMillisecondsOfJitter() {
    QuotaPlan plan = QuotaPlanner.plan(BACEN, Duration.ofMillis(100), 4);
    assertThat(plan.ratePerSecond()).isCloseTo(9.95, within(1e-9));
    assertThat(plan.capacity()).isCloseTo(10 - 9.95 * 0.1, within(1e-9));
    assertThat(plan.utilization()).isCloseTo(0.995, within(1e-9));
    assertThat(plan.localShare()).isEqualTo(0.25);
    assertThat(plan.lateLimit()).isEqualTo(Duration.ofMillis(50));
    assertThat(plan.reasoning()).contains("Bc = Bp - rc x J = 10 - 9.9500 x 0.100 = 9.0050",
        "Bc + rc x J = 10.0000 <= Bp = 10", "99.5%");
  }

  @Test
  void aSlidingWindowTradesBurstForRate() {
    QuotaPlan plan = QuotaPlanner.plan(ProviderPolicy.slidingWindow(600, Duration.ofMinutes(1)),
        Duration.ofMillis(500));
    assertThat(plan.capacity()).isEqualTo(1);
    assertThat(plan.ratePerSecond()).isCloseTo(599 / 60.5, within(1e-9));
    assertThat(plan.capacity() + plan.ratePerSecond() * 60.5).isCloseTo(600, within(1e-9));
  }

  @Test
  void aJitterSoLargeThatNoCapacityOfOneIsSafeIsRefusedWithTheLimit() {
    assertThatThrownBy(() -> QuotaPlanner.plan(BACEN, Duration.ofSeconds(1)))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("jitter PT1S is too large for a provider bucket of 10 + 10/s: the client capacity would be "
            + "0.050, and at least 1 is needed; J must be at most 0.905 s");
  }

  @Test
  void badInputIsRefused() {
    assertThatThrownBy(() -> QuotaPlanner.plan(BACEN, Duration.ofMillis(-1)))
        .hasMessage("jitter must be >= 0, but was PT-0.001S");
    assertThatThrownBy(() -> QuotaPlanner.plan(BACEN, Duration.ZERO, 0))
        .hasMessage("replicas must be >= 1, but was 0");
    assertThatThrownBy(() -> ProviderPolicy.tokenBucket(0, 10, Duration.ofSeconds(1)))
        .hasMessage("limit must be positive and finite, but was 0.0");
    assertThatThrownBy(() -> QuotaPlanner.plan(ProviderPolicy.fixedWindow(1, Duration.ofSeconds(1)), Duration.ZERO))
        .hasMessageStartingWith("a window of 1 call(s) leaves no room");
  }
}
