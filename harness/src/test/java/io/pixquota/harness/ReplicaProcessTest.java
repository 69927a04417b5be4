package io.pixquota.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The line protocol between an orchestrator and a real replica JVM. */
class ReplicaProcessTest {

  @Test
  void readyThenOneResultPerGoThenEndOfInputStopsIt() throws Exception {
    try (ReplicaProcess replica = ReplicaProcess.start(EchoReplica.class, List.of("r7"),
        ProcessBuilder.Redirect.INHERIT)) {
      replica.awaitReady();
      List<String> other = new ArrayList<>();
      replica.go(1234, "burst", "20");
      assertThat(replica.result(other::add)).isEqualTo("{\"at\":1234,\"words\":\"burst,20\"}");
      replica.go(5678);
      assertThat(replica.result(other::add)).isEqualTo("{\"at\":5678,\"words\":\"\"}");
      assertThat(other).containsExactly("PROGRESS r7 1/1", "PROGRESS r7 1/1");
      assertThat(replica.finish()).as("the replica's own exit code").isEqualTo(3);
    }
  }

  @Test
  void aReplicaThatDiesBeforeReadyIsReportedWithItsExitCode() throws Exception {
    try (ReplicaProcess replica = ReplicaProcess.start(EchoReplica.class, List.of(),
        ProcessBuilder.Redirect.DISCARD)) {
      assertThatThrownBy(replica::awaitReady).isInstanceOf(IllegalStateException.class)
          .hasMessage("a replica exited before it was ready (exit code 1)");
    }
  }

  @Test
  void nanoTimeAtAnInstantAgreesWithTheWallClock() {
    long now = System.currentTimeMillis();
    long at = Sleep.nanoTimeAt(now + 1000);
    assertThat((at - System.nanoTime()) / 1e6).isBetween(900.0, 1000.0);
  }
}
