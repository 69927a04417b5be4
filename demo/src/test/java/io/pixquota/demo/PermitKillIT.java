package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.ReplicaProcess;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replica killed with {@code kill -9} while it holds every permit of the pool costs the fleet the permits' lease,
 * not the permits: the other replica resumes once the leases end (and within 1 s of it), and the provider never sees
 * more than its cap in flight, though the dead replica's calls stay in flight there for a while.
 */
@ExtendWith(RedisExtension.class)
class PermitKillIT {
  private static final long LEASE_MS = 6_000;

  private static List<String> replica(MockBacen mock, TestRedis redis, String bucket, int id, String... more) {
    List<String> args = new ArrayList<>(List.of("replica", "--bacen-url", mock.url().toString(), "--redis-url",
        redis.uri().toString(), "--mode", "THROTTLED", "--start-on-stdin", "--capacity", "1000", "--rate", "1000",
        "--bucket-name", bucket, "--replica-id", Integer.toString(id), "--in-flight", "6", "--max-wait-ms", "1000",
        "--call-timeout-ms", "4000", "--provider-timeout-ms", "4000", "--permit-lease-ms",
        Long.toString(LEASE_MS)));
    args.addAll(List.of(more));
    return args;
  }

  @SuppressWarnings("unchecked")
  @Test
  void aKilledHolderCostsItsLeaseAndTheCapHoldsMeanwhile(TestRedis redis) throws Exception {
    String bucket = redis.keyPrefix().replace(":", "-") + "spi";
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(100_000, 100_000, 1000))
        .latency(2_500, 0).maxInFlight(6).build())) {
      long takenAt;
      try (ReplicaProcess holder = ReplicaProcess.start(DemoMain.class, replica(mock, redis, bucket, 1, "--calls",
          "6"), ProcessBuilder.Redirect.INHERIT)) {
        holder.awaitReady();
        long startAt = System.currentTimeMillis() + 200;
        holder.go(startAt);
        Awaits.until("the holder's 6 calls in flight at the provider", Duration.ofSeconds(10),
            () -> ((Number) mock.inFlightStats("demo").get("now")).intValue() == 6);
        takenAt = System.currentTimeMillis(); // its permits were taken before this
        holder.kill();
      }
      try (ReplicaProcess other = ReplicaProcess.start(DemoMain.class, replica(mock, redis, bucket, 2, "--calls",
          "6", "--duration-ms", "12000"), ProcessBuilder.Redirect.INHERIT)) {
        other.awaitReady();
        long startAt = System.currentTimeMillis() + 200;
        other.go(startAt);
        other.result(line -> { });
        assertThat(other.finish()).isZero();
      }
      Map<String, Object> stats = mock.stats("demo", true);
      List<Map<String, Object>> events = (List<Map<String, Object>>) stats.get("events");
      long origin = mock.originNanoTime();
      long firstServed = events.stream().filter(e -> "r2".equals(e.get("replica")) && ((Number) e.get("status"))
          .intValue() == 200).mapToLong(e -> ((Number) e.get("atMicros")).longValue()).min().orElse(-1);
      assertThat(firstServed).as("the other replica resumed").isPositive();
      long firstServedEpochMs = System.currentTimeMillis() - (System.nanoTime() - origin) / 1_000_000
          + firstServed / 1000 - 2_500; // its arrival: the mock records the decision, after its 2.5 s latency
      assertThat(firstServedEpochMs - takenAt).as("not before the dead holder's leases ended, and within 1 s after")
          .isBetween(LEASE_MS - 1_500, LEASE_MS + 1_000);
      assertThat(mock.inFlightStats("demo")).as("never above the cap, no refusal: %s", mock.inFlightStats("demo"))
          .containsEntry("mostSeen", 6).containsEntry("refused", 0);
    }
  }
}
