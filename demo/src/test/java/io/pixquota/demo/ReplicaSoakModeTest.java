package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.RefusalBound;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.plan.ProviderPolicy;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A replica JVM planning its bucket from the mock's GET /policies/pix and calling at saturating demand. */
@ExtendWith(RedisExtension.class)
class ReplicaSoakModeTest {

  @Test
  void aSelfCalibratedReplicaAtSaturatingDemandGetsNo429AndUsesTheQuota(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      JsonNode result;
      try (ReplicaProcess replica = ReplicaProcess.start(DemoMain.class, List.of("replica",
          "--bacen-url", mock.url().toString(), "--redis-url", redis.uri().toString(),
          "--bucket-name", redis.keyPrefix().replace(":", "-") + "soak", "--calls", "4", "--duration-ms", "2000",
          "--plan-jitter-ms", "100"), ProcessBuilder.Redirect.DISCARD)) {
        result = new ObjectMapper().readTree(replica.result(line -> { }));
        assertThat(replica.finish()).isZero();
      }
      long served = 0;
      long refused = 0;
      for (JsonNode call : result.get("calls")) {
        String outcome = call.get("outcome").asText();
        assertThat(outcome).isIn(CallRecord.SERVED, CallRecord.TOO_MANY_REQUESTS);
        served += outcome.equals(CallRecord.SERVED) ? 1 : 0;
        refused += outcome.equals(CallRecord.TOO_MANY_REQUESTS) ? 1 : 0;
      }
      // plan for 10 + 10/s with J = 100 ms: burst 9.005, 9.95/s; 2 s of demand admits about 9 + 19.9
      assertThat(served + refused).isBetween(24L, 34L);
      // "0 x 429" holds while calls reach the provider within the plan's J of their slots; this run measured how far
      // they did (lateness + answer time, the SDK's own meters) and may meet only the 429s that allows.
      QuotaPlan plan = QuotaPlanner.plan(ProviderPolicy.tokenBucket(10, 10, Duration.ofSeconds(1)),
          Duration.ofMillis(100));
      double jitterMs = result.get("latenessMaxMs").asDouble() + result.get("answerMaxMs").asDouble();
      long allowed = RefusalBound.allowed(10, 10, plan.capacity(), plan.ratePerSecond(), jitterMs / 1000);
      assertThat((Long) mock.stats("demo", false).get("refused")).as("429s with calls reaching the provider within "
          + "%.1f ms of their slots (the plan's J: 100 ms): %d allowed", jitterMs, allowed)
          .isEqualTo(refused).isLessThanOrEqualTo(allowed);
    }
  }
}
