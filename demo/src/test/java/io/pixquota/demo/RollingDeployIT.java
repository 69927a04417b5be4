package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.ReplicaProcess;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling deploy: replicas of the previous release (the demo jar .ci/run builds from the last commit landed before
 * this one's script, given as PIXQUOTA_PREVIOUS_DEMO_JAR) and of this one share one bucket and one pool for 60 s,
 * callers back to back, against the mock BACEN (10 + 10/s, 6 in flight at once). Answers in 1 s: the cap binds (6/s);
 * in 300 ms: the bucket does (8 + 9/s, the cap would allow 20/s). The old script and the new one read and write the
 * same keys: 0 x 429 at the judge, the cap held by its own count, and no replica resets any state.
 */
class RollingDeployIT {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "answers in {0} ms")
  @ValueSource(ints = {1000, 300})
  void thePreviousReleaseAndThisOneShareABucketAndAPoolFor60s(int latencyMillis) throws Exception {
    String previous = System.getenv("PIXQUOTA_PREVIOUS_DEMO_JAR");
    assertThat(previous).as("PIXQUOTA_PREVIOUS_DEMO_JAR: the previous release's demo jar").isNotBlank();
    assertThat(Path.of(previous)).exists();
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().latency(latencyMillis, 0).maxInFlight(6).build())) {
      List<String> common = List.of("replica", "--bacen-url", mock.url().toString(), "--redis-url",
          redis.uri().toString(), "--mode", "THROTTLED", "--start-on-stdin", "--capacity", "8", "--rate", "9",
          "--bucket-name", "rolling", "--in-flight", "6", "--calls", "4", "--duration-ms", "60000");
      List<ReplicaProcess> replicas = new ArrayList<>();
      List<Path> logs = new ArrayList<>();
      try {
        for (int i = 1; i <= 4; i++) {
          List<String> args = new ArrayList<>(common);
          args.addAll(List.of("--replica-id", Integer.toString(i)));
          Path log = dir.resolve("r" + i + ".err");
          logs.add(log);
          ProcessBuilder.Redirect err = ProcessBuilder.Redirect.to(log.toFile());
          replicas.add(i % 2 == 1 ? ReplicaProcess.startJar(previous, args, err)
              : ReplicaProcess.start(DemoMain.class, args, err));
        }
        for (ReplicaProcess r : replicas) {
          r.awaitReady();
        }
        long startAt = System.currentTimeMillis() + 500;
        for (ReplicaProcess r : replicas) {
          r.go(startAt);
        }
        ObjectMapper json = new ObjectMapper();
        long served = 0;
        for (int i = 0; i < replicas.size(); i++) {
          JsonNode result = json.readTree(replicas.get(i).result(line -> { }));
          for (JsonNode call : result.get("calls")) {
            served += call.get("outcome").asText().equals("served") ? 1 : 0;
          }
          if (i % 2 == 1) { // this release's replicas count what they had to reset
            assertThat(result.get("stateRepairs").asDouble()).as("r%d: fields reset", i + 1).isZero();
            assertThat(result.get("stateLost").asDouble()).as("r%d: states lost", i + 1).isZero();
          }
        }
        for (ReplicaProcess r : replicas) {
          assertThat(r.finish()).isZero();
        }
        for (Path log : logs) {
          assertThat(Files.readString(log)).as("%s: no state reset, no state recreated, no 429", log.getFileName())
              .doesNotContain("were reset").doesNotContain("was recreated").doesNotContain("answered 429");
        }
        Map<String, Object> stats = mock.stats("demo", false);
        assertThat(stats.get("refused")).as("the judge's 429s: %s", stats).isEqualTo(0L);
        assertThat(mock.inFlightStats("demo")).as("the cap, by the judge's count")
            .containsEntry("refused", 0);
        assertThat(((Number) mock.inFlightStats("demo").get("mostSeen")).intValue()).isBetween(1, 6);
        // 6 in flight for 1 s each, 60 s: 360 at most; or 8 + 9/s for 60 s: 548 at most
        assertThat(served).as("both releases serving, near the binding limit")
            .isGreaterThan(latencyMillis == 1000 ? 300 : 500);
      } finally {
        replicas.forEach(ReplicaProcess::close);
      }
    }
  }
}
