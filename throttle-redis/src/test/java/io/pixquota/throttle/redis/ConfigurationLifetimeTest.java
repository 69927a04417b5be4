package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.FakeTime;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The adversarial test's sixth finding: a replica that asked for 1 + 0.01/s with a long lease, then closed, held the
 * other replica at 0/s for the rest of a 70 s run, and the other's rate gauge read 9.0 meanwhile. A replica that
 * closes takes its configuration out when no other live replica uses it; one killed with {@code kill -9} stops
 * counting within the fleet's bound (30 s by default); the readings give the rate in force. On a Redis whose clock the
 * test moves.
 */
class ConfigurationLifetimeTest {
  private static final FakeTime TIME = FakeTime.manual(50_000);
  private static RedisOnFakeTime redis;
  private static int run;
  private String prefix;

  @BeforeAll
  static void start() {
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @BeforeEach
  void fresh() {
    prefix = "cl" + (++run) + ":";
  }

  private RedisTokenBucket bucket(double capacity, double rate, Duration lease, Duration believed) {
    TokenBucketConfig.Builder c = TokenBucketConfig.custom("pix").keyPrefix(prefix).limit(capacity, rate)
        .configurationLease(lease);
    if (believed != null) {
      c.maxConfigurationLease(believed);
    }
    return RedisTesting.create(redis.redisson, c.build(), TIME);
  }

  @Test
  void aReplicaThatClosesTakesItsConfigurationOutAndTheRateInForceIsTheFleets() throws Exception {
    RedisTokenBucket healthy = bucket(8, 9, Duration.ofSeconds(30), null);
    RedisTokenBucket strict = bucket(1, 0.01, Duration.ofMinutes(5), Duration.ofMinutes(5));
    healthy.acquire(1, Duration.ZERO);
    strict.acquire(1, Duration.ofSeconds(1)); // granted: a refused call writes nothing
    TIME.advance(Duration.ofSeconds(1));
    healthy.acquire(1, Duration.ZERO);
    assertThat(healthy.readings().configurations()).isEqualTo(2);
    assertThat(healthy.readings().ratePerSecond()).as("the fleet is held to the strictest: 0.01/s, not its 9/s")
        .isEqualTo(0.01);
    strict.close();
    TIME.advance(Duration.ofSeconds(1));
    healthy.acquire(1, Duration.ZERO);
    assertThat(healthy.readings().configurations()).as("taken out at its close").isEqualTo(1);
    assertThat(healthy.readings().ratePerSecond()).isEqualTo(9.0);
    assertThat(healthy.state().configurations()).containsExactly("8.0:9.0");
  }

  @Test
  void aConfigurationAnotherLiveReplicaUsesStaysWhenOneOfItsReplicasCloses() throws Exception {
    RedisTokenBucket a = bucket(8, 9, Duration.ofSeconds(30), null);
    RedisTokenBucket b = bucket(8, 9, Duration.ofSeconds(30), null);
    RedisTokenBucket other = bucket(4, 2, Duration.ofSeconds(30), null);
    a.acquire(1, Duration.ZERO);
    b.acquire(1, Duration.ZERO);
    other.acquire(1, Duration.ZERO);
    a.close();
    TIME.advance(Duration.ofSeconds(1));
    other.acquire(1, Duration.ZERO);
    assertThat(other.state().configurations()).as("b still uses 8:9").containsExactly("4.0:2.0", "8.0:9.0");
  }

  @Test
  void aReplicaKilledWithALongLeaseStopsCountingWithinTheFleetsBound() throws Exception {
    RedisTokenBucket healthy = bucket(8, 9, Duration.ofSeconds(30), null);
    RedisTokenBucket dead = bucket(1, 0.01, Duration.ofMinutes(5), Duration.ofMinutes(5));
    dead.acquire(1, Duration.ofSeconds(1)); // granted, then kill -9: no close
    TIME.advance(Duration.ofSeconds(1));
    healthy.acquire(1, Duration.ZERO);
    assertThat(healthy.readings().stateRepairs()).as("a lease beyond this replica's bound, cut to it").isEqualTo(1);
    assertThat(healthy.readings().ratePerSecond()).isEqualTo(0.01);
    TIME.advance(Duration.ofSeconds(31));
    healthy.acquire(1, Duration.ZERO);
    assertThat(healthy.readings().configurations()).as("30 s after the cut: gone").isEqualTo(1);
    assertThat(healthy.readings().ratePerSecond()).isEqualTo(9.0);
  }
}
