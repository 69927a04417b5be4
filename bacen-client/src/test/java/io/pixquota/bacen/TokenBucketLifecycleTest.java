package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.RespConnection;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/** What happens to the bucket's key and script over time: NOSCRIPT, expiry, deletion. */
@ExtendWith(RedisExtension.class)
class TokenBucketLifecycleTest {

  @Test
  void recoversFromNoScriptAfterScriptFlush(TestRedis redis) throws Exception {
    RedisTokenBucket bucket = RedisTokenBucket.create(redis.newRedisson(),
        TokenBucketConfig.custom("flush").keyPrefix(redis.keyPrefix()).limit(3, 0.001).build());
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).isEqualTo(2, org.assertj.core.data.Offset.offset(0.01));
    try (RespConnection admin = redis.rawConnection()) {
      assertThat(admin.call("SCRIPT", "FLUSH")).isEqualTo("OK");
    }
    Acquisition after = bucket.acquire(1, Duration.ZERO);
    assertThat(after.granted()).isTrue();
    assertThat(after.remaining()).isCloseTo(1, org.assertj.core.data.Offset.offset(0.01)); // state kept, counted once
  }

  @Test
  void keyCarriesAHashTagAndExpiresOnceTheBucketWouldBeFull(TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("idle").keyPrefix(redis.keyPrefix()).limit(2, 100).build();
    assertThat(config.key()).isEqualTo(redis.keyPrefix() + "{idle}:tb");
    RedisTokenBucket bucket = RedisTokenBucket.create(redis.newRedisson(), config);
    bucket.acquire(2, Duration.ZERO); // empty: full again after 2 / 100 s = 20 ms
    try (RespConnection admin = redis.rawConnection()) {
      long ttl = (Long) admin.call("PTTL", config.key());
      assertThat(ttl).isBetween(1L, 22L);
      long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while ((Long) admin.call("EXISTS", config.key()) == 1 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(admin.call("EXISTS", config.key())).isEqualTo(0L);
    }
    // And an expired bucket is simply full.
    assertThat(bucket.acquire(2, Duration.ZERO).granted()).isTrue();
  }

  @Test
  void deletingTheKeyMidRunAdmitsAtMostOneExtraBurst(TestRedis redis) throws Exception {
    MutableClock clock = MutableClock.atSeconds(5_000);
    double capacity = 8;
    double rate = 9;
    TokenBucketConfig config = TokenBucketConfig.custom("deleted").keyPrefix(redis.keyPrefix())
        .clientClock(clock).limit(capacity, rate).build();
    RedissonClient client = redis.newRedisson();
    RedisTokenBucket bucket = RedisTokenBucket.create(client, config);
    WindowAudit audit = new WindowAudit();
    Random random = new Random(42);
    try (RespConnection admin = redis.rawConnection()) {
      for (int i = 0; i < 600; i++) { // about 3x overload for 20 simulated seconds
        clock.advance(Duration.ofMillis(random.nextInt(75)));
        audit.add(bucket.acquire(1, Duration.ofMillis(random.nextInt(500))), 1);
        if (i == 300) {
          admin.call("DEL", config.key());
        }
      }
    }
    for (long windowMicros : new long[] {0, 100_000, 1_000_000, 5_000_000}) {
      double bound = capacity + rate * windowMicros / 1e6;
      assertThat(audit.maxInWindow(windowMicros)).as("window %d us", windowMicros)
          .isLessThanOrEqualTo(bound + capacity + 1e-6);
    }
  }

  @Test
  void simulatedOverloadKeepsEveryWindowWithinBurstPlusRateTimesLength(TestRedis redis) throws Exception {
    MutableClock clock = MutableClock.atSeconds(7_000);
    double capacity = 8;
    double rate = 9;
    RedisTokenBucket bucket = RedisTokenBucket.create(redis.newRedisson(), TokenBucketConfig.custom("sim")
        .keyPrefix(redis.keyPrefix()).clientClock(clock).limit(capacity, rate).build());
    WindowAudit audit = new WindowAudit();
    Random random = new Random(7);
    double[] costs = {1, 1, 1, 2.5, 0.5};
    for (int i = 0; i < 1500; i++) {
      clock.advance(Duration.ofMillis(random.nextInt(80))); // ~25 calls/s of ~1.2 tokens against 9/s
      double cost = costs[random.nextInt(costs.length)];
      audit.add(bucket.acquire(cost, Duration.ofMillis(random.nextInt(3000))), cost);
    }
    for (long windowMicros : new long[] {0, 50_000, 100_000, 1_000_000, 5_000_000, 20_000_000}) {
      double bound = capacity + rate * windowMicros / 1e6 + 1e-6;
      assertThat(audit.maxInWindow(windowMicros)).as("window %d us", windowMicros).isLessThanOrEqualTo(bound);
    }
  }
}
