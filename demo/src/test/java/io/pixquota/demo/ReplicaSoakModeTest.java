package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A replica JVM planning its bucket from the mock's GET /policies/pix and calling at saturating demand. */
@ExtendWith(RedisExtension.class)
class ReplicaSoakModeTest {

  @Test
  void aSelfCalibratedReplicaAtSaturatingDemandGetsNo429AndUsesTheQuota(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      Process replica = new ProcessBuilder(System.getProperty("java.home") + File.separator + "bin" + File.separator
          + "java", "-cp", System.getProperty("java.class.path"), DemoMain.class.getName(), "replica",
          "--bacen-url", mock.url().toString(), "--redis-url", redis.uri().toString(),
          "--bucket-name", redis.keyPrefix().replace(":", "-") + "soak", "--calls", "4", "--duration-ms", "2000",
          "--plan-jitter-ms", "100").redirectError(ProcessBuilder.Redirect.DISCARD).start();
      JsonNode result = null;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(replica.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          if (line.startsWith("RESULT ")) {
            result = new ObjectMapper().readTree(line.substring(7));
          }
        }
      }
      assertThat(replica.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(replica.exitValue()).isZero();
      assertThat(result).isNotNull();
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
