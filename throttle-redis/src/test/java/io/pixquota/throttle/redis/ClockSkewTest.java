package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.WindowAudit;
import java.time.Clock;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * Clocks that disagree, on clocks the test moves: replicas 10 s early and late, a client clock ahead of Redis's
 * {@code TIME}, and a failover to a Redis node whose clock is 10 s behind. None mints a token.
 */
@ExtendWith(RedisExtension.class)
class ClockSkewTest {

  @Test
  void replicasTenSecondsEarlyAndLateKeepEveryWindowWithinOneExtraBurstAndWaitsBounded(TestRedis redis)
      throws Exception {
    double capacity = 8;
    double rate = 9;
    FakeTime truth = FakeTime.autoAdvancing(50_000);
    FakeTime early = FakeTime.autoAdvancing(50_010);
    FakeTime late = FakeTime.autoAdvancing(49_990);
    FakeTime[] clocks = {truth, early, late};
    RedissonClient client = redis.newRedisson();
    RedisTokenBucket[] replicas = new RedisTokenBucket[3];
    for (int i = 0; i < 3; i++) {
      replicas[i] = RedisTokenBucket.create(RedissonStore.of(client),
          TokenBucketConfig.custom("skew").keyPrefix(redis.keyPrefix())
          .clientClock(clocks[i].clock()).limit(capacity, rate).build());
    }
    WindowAudit audit = new WindowAudit(); // slots re-based on the true clock
    Random random = new Random(3);
    long maxWaitMicros = 0;
    for (int i = 0; i < 1200; i++) { // ~3x overload for 40 simulated seconds
      long step = random.nextInt(30);
      for (FakeTime c : clocks) {
        c.advanceMillis(step);
      }
      Acquisition a = replicas[random.nextInt(3)].acquire(1, Duration.ofSeconds(2));
      if (a.granted()) {
        maxWaitMicros = Math.max(maxWaitMicros, a.waitTime().toNanos() / 1000);
        // the replica leaves `wait` after its own 'now'; on the true clock that is the true now + wait
        long trueSlot = truth.micros() + a.waitTime().toNanos() / 1000;
        audit.add(Acquisition.of(true, a.waitTime(), a.remaining(), trueSlot, 0), 1);
      }
    }
    assertThat(maxWaitMicros).as("waits stay within the max wait").isLessThanOrEqualTo(2_000_000);
    for (long windowMicros : new long[] {0, 100_000, 1_000_000, 10_000_000}) {
      double bound = capacity + rate * windowMicros / 1e6;
      assertThat(audit.maxInWindow(windowMicros)).as("window %d us", windowMicros)
          .isLessThanOrEqualTo(bound + capacity + 1e-9);
    }
  }

  @Test
  void aReplicaWhoseClockIsTenSecondsAheadOfRedisMintsNothing() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(3_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      RedissonClient client = redis.redisson;
      TokenBucketConfig base = TokenBucketConfig.custom("ahead").limit(8, 0.5).build();
      RedisTokenBucket normal = RedisTokenBucket.create(RedissonStore.of(client), TokenBucketConfig.from(base)
          .clientClock(time.clock()).build());
      RedisTokenBucket early = RedisTokenBucket.create(RedissonStore.of(client), TokenBucketConfig.from(base)
          .clientClock(Clock.offset(time.clock(), Duration.ofSeconds(10))).build());
      RedisTokenBucket late = RedisTokenBucket.create(RedissonStore.of(client), TokenBucketConfig.from(base)
          .clientClock(Clock.offset(time.clock(), Duration.ofSeconds(-10))).build());
      for (int i = 0; i < 8; i++) {
        assertThat(normal.acquire(1, Duration.ZERO).granted()).isTrue();
      }
      // 10 s of refill at 0.5/s would be 5 tokens; the early clock is capped at Redis's TIME and finds none
      Acquisition fromEarly = early.acquire(1, Duration.ZERO);
      assertThat(fromEarly.granted()).isFalse();
      assertThat(fromEarly.waitTime()).as("one token at 0.5/s").isEqualTo(Duration.ofSeconds(2));
      Acquisition fromLate = late.acquire(1, Duration.ZERO);
      assertThat(fromLate.granted()).as("and the late one finds none either").isFalse();
      assertThat(fromLate.waitTime()).isEqualTo(Duration.ofSeconds(2));
      assertThat(early.acquire(1, Duration.ofSeconds(3)).waitTime()).isEqualTo(Duration.ofSeconds(2));
    }
  }

  @Test
  void aFailoverToANodeTenSecondsBehindMintsNothingAndWaitsStayBounded() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(4_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      TokenBucketConfig config = TokenBucketConfig.custom("failover").limit(10, 10)
          .configurationLease(Duration.ofMillis(1)).build(); // the TTL is the bucket's, not the lease's
      RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.redisson), config, time);
      bucket.acquire(10, Duration.ZERO); // drained at 4000 s
      time.setSeconds(3_990); // the promoted node's clock is 10 s behind; the bucket's state came along
      Acquisition a = bucket.acquire(1, Duration.ofSeconds(5));
      assertThat(a.granted()).isTrue();
      assertThat(a.waitTime()).as("one token's wait, not 10 s more").isEqualTo(Duration.ofMillis(100));
      assertThat(a.remaining()).as("10 s of 'refill' minted nothing").isCloseTo(-1, within(1e-9));
      assertThat((Long) redis.admin.call("PTTL", config.key()))
          .as("the key outlives the stored updatedAt, so expiry cannot refill early: it needs 10 s + 1.1 s + 1 ms, "
              + "and the expiry set at 4000 s (1001 ms, + a quarter) already gives it that")
          .isGreaterThanOrEqualTo(11_101L).isEqualTo(10_000L + 1001 + 250);
    }
  }
}
