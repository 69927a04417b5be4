package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.harness.RespConnection;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.WindowAudit;
import io.pixquota.throttle.redis.internal.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/** What happens to the bucket's key and script over time: NOSCRIPT, expiry, deletion. Nothing sleeps. */
@ExtendWith(RedisExtension.class)
class TokenBucketLifecycleTest {

  @Test
  void recoversFromNoScriptAfterScriptFlush(TestRedis redis) throws Exception {
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
        TokenBucketConfig.custom("flush").keyPrefix(redis.keyPrefix()).limit(3, 0.001).build());
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).isCloseTo(2, within(0.01));
    try (RespConnection admin = redis.rawConnection()) {
      assertThat(admin.call("SCRIPT", "FLUSH")).isEqualTo("OK");
    }
    long noScriptBefore = LuaScript.TOKEN_BUCKET.noScriptCount();
    Acquisition after = bucket.acquire(1, Duration.ZERO);
    assertThat(after.granted()).isTrue();
    assertThat(after.remaining()).isCloseTo(1, within(0.01)); // state kept, counted once
    assertThat(LuaScript.TOKEN_BUCKET.noScriptCount() - noScriptBefore).as("NOSCRIPT met once, counted").isEqualTo(1);
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("cached again by the EVAL").isCloseTo(0, within(0.01));
    assertThat(LuaScript.TOKEN_BUCKET.noScriptCount() - noScriptBefore).isEqualTo(1);
  }

  @Test
  void keyCarriesAHashTagAndExpiresOnceTheBucketWouldBeFull() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(2_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      RespConnection admin = redis.admin;
      TokenBucketConfig config = TokenBucketConfig.custom("idle").limit(2, 100).limit(10, 1)
          .configurationLease(Duration.ofMillis(1)).build(); // the lease's own hold on the key: the next test
      assertThat(config.key()).isEqualTo("pixquota:{idle}:tb");
      RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.redisson), config, time);
      bucket.acquire(2, Duration.ZERO); // limit 1 full again after 2 / 100 s, limit 2 after 2 / 1 s
      assertThat((Long) admin.call("PTTL", config.key()))
          .as("the slowest limit's 2 s, + 1 ms, and a quarter more so that a busy bucket rarely pays a PEXPIRE")
          .isEqualTo(2001L + 500);
      time.advanceMillis(250);
      bucket.acquire(0.25, Duration.ZERO); // needs 2001 ms more (limit 2 at 8), lives 2251 ms more: no PEXPIRE
      assertThat((Long) admin.call("PTTL", config.key())).as("the expiry set 250 ms ago").isEqualTo(2251L);
      time.advanceMillis(750);
      bucket.acquire(2, Duration.ZERO); // limit 2 at 6.75: needs 3251 ms, lives 1501 ms more: a new expiry
      assertThat((Long) admin.call("PTTL", config.key())).isEqualTo(3251L + 812);
      time.advanceMillis(3251);
      assertThat(admin.call("EXISTS", config.key())).as("still there once full").isEqualTo(1L);
      time.advanceMillis(813);
      assertThat(admin.call("EXISTS", config.key())).as("gone after the quarter more").isEqualTo(0L);
      // And an expired bucket is simply full.
      assertThat(bucket.acquire(2, Duration.ZERO).remaining()).isCloseTo(0, within(1e-9));
    }
  }

  @Test
  void aConfigurationKeepsTheKeyForItsLeaseSoTheStrictestSettingIsNotForgottenEarly() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(3_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      TokenBucketConfig config = TokenBucketConfig.custom("leased").limit(2, 100).build(); // full in 10 ms
      RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.redisson), config, time);
      bucket.acquire(1, Duration.ZERO);
      assertThat((Long) redis.admin.call("PTTL", config.key())).as("the default 30 s lease, + 1 ms, + a quarter")
          .isEqualTo(30_001L + 7_500);
      long leaseEnd = time.micros() + 30_000_000;
      assertThat(redis.admin.call("HGET", config.key(), "c:2.0:100.0")).as("lease end, microseconds")
          .isEqualTo(Long.toString(leaseEnd));
      time.advanceMillis(3_750);
      bucket.acquire(1, Duration.ZERO);
      assertThat(redis.admin.call("HGET", config.key(), "c:2.0:100.0")).as("7/8 of the lease left: kept")
          .isEqualTo(Long.toString(leaseEnd));
      time.advanceMillis(1);
      bucket.acquire(1, Duration.ZERO);
      assertThat(redis.admin.call("HGET", config.key(), "c:2.0:100.0")).as("less than 7/8 left: renewed")
          .isEqualTo(Long.toString(time.micros() + 30_000_000));
    }
  }

  @Test
  void limitsAreStoredByWhatTheyAreSoReplicasListingThemInAnotherOrderShareThem(TestRedis redis) throws Exception {
    FakeTime time = FakeTime.autoAdvancing(6_000);
    RedissonClient client = redis.newRedisson();
    TokenBucketConfig oneOrder = TokenBucketConfig.custom("order").keyPrefix(redis.keyPrefix())
        .clientClock(time.clock()).limit(8, 9).limit(10, 1).build();
    TokenBucketConfig otherOrder = TokenBucketConfig.custom("order").keyPrefix(redis.keyPrefix())
        .clientClock(time.clock()).limit(10, 1).limit(8, 9).build();
    TokenBucketConfig alone = TokenBucketConfig.custom("alone").keyPrefix(redis.keyPrefix())
        .clientClock(time.clock()).limit(8, 9).limit(10, 1).build();
    RedisTokenBucket[] mixed = {RedisTokenBucket.create(RedissonStore.of(client), oneOrder),
        RedisTokenBucket.create(RedissonStore.of(client), otherOrder)};
    RedisTokenBucket single = RedisTokenBucket.create(RedissonStore.of(client), alone);
    int admittedMixed = 0;
    int admittedAlone = 0;
    for (int i = 0; i < 100; i++) { // 5 s, a call every 50 ms on each
      time.advanceMillis(50);
      admittedMixed += mixed[i % 2].acquire(1, Duration.ZERO).granted() ? 1 : 0;
      admittedAlone += single.acquire(1, Duration.ZERO).granted() ? 1 : 0;
    }
    assertThat(admittedAlone).as("10 + 1/s x 5 s, rounded down").isEqualTo(14);
    assertThat(admittedMixed).as("the same bucket, whatever the order (once 30)").isEqualTo(admittedAlone);
    try (RespConnection admin = redis.rawConnection()) {
      @SuppressWarnings("unchecked")
      List<Object> fields = (List<Object>) admin.call("HKEYS", oneOrder.key());
      assertThat(fields).as("one configuration, its limits sorted; each replica names it")
          .filteredOn(f -> !f.toString().startsWith("r:"))
          .containsExactlyInAnyOrder("u", "e", "v", "c:10.0:1.0,8.0:9.0", "t:8.0:9.0", "t:10.0:1.0");
      assertThat(fields).filteredOn(f -> f.toString().startsWith("r:")).hasSize(2);
      for (Object f : fields) {
        if (f.toString().startsWith("r:")) {
          assertThat(admin.call("HGET", oneOrder.key(), f.toString()).toString()).startsWith("10.0:1.0,8.0:9.0/");
        }
      }
    }
  }

  @Test
  void deletingTheKeyMidRunAdmitsAtMostOneExtraBurst(TestRedis redis) throws Exception {
    FakeTime time = FakeTime.autoAdvancing(5_000);
    double capacity = 8;
    double rate = 9;
    TokenBucketConfig config = TokenBucketConfig.custom("deleted").keyPrefix(redis.keyPrefix())
        .clientClock(time.clock()).limit(capacity, rate).build();
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config, time);
    WindowAudit audit = new WindowAudit();
    Random random = new Random(42);
    try (RespConnection admin = redis.rawConnection()) {
      for (int i = 0; i < 600; i++) { // about 3x overload for 20 simulated seconds
        time.advanceMillis(random.nextInt(75));
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
}
