package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
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
      for (JsonNode call : result.get("calls")) {
        assertThat(call.get("outcome").asText()).isEqualTo("served");
        served++;
      }
      // plan for 10 + 10/s with J = 100 ms: burst 9.005, 9.95/s; 2 s of demand admits about 9 + 19.9
      assertThat(served).isBetween(24L, 34L);
      assertThat(mock.stats("demo", false).get("refused")).isEqualTo(0L);
    }
  }
}
