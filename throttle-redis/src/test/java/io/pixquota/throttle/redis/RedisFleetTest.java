package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.harness.RespConnection;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.StdErrCapture;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.internal.GenerationChange;
import io.pixquota.throttle.internal.StepStamp;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RTopic;
import org.redisson.client.codec.StringCodec;

/**
 * The fleet's news through Redis between two processes (two Redisson clients): a cut voids the other process's
 * sleeping slots through the bucket's channel, without a call of its own; and replicas that disagree are named.
 */
@ExtendWith(RedisExtension.class)
class RedisFleetTest {
  @Test
  void aCutByOneProcessMovesTheOthersSlotsThroughTheChannelWithoutACallOfItsOwn(TestRedis redis) throws Exception {
    RedisTokenBucket[] ab = twoProcesses(redis, "news");
    RedisTokenBucket a = ab[0];
    RedisTokenBucket b = ab[1];
    a.acquire(1, Duration.ZERO);
    Acquisition sleeping = a.acquire(1, Duration.ofSeconds(10)); // a's caller, booked at 1 s
    Acquisition refused = b.acquire(1, Duration.ofSeconds(10)); // b's, at 2 s
    assertThat(b.providerRefused(refused, Duration.ofSeconds(3))).isEqualTo(TokenBucket.Refusal.CUT);
    Awaits.until("a hears of the cut through the channel, with no call of its own", Duration.ofSeconds(5),
        () -> a.validity(sleeping) == TokenBucket.Validity.RATE_CUT && a.channel().reads() == 1);
    long reads = a.channel().reads();
    Acquisition moved = a.retimed(sleeping);
    Acquisition theirs = b.retimed(refused);
    GenerationChange change = GenerationChange.parse(redis.newRedisson().<String, String>getMap(a.config().key(),
        StringCodec.INSTANCE).get("j"));
    assertThat(change.before() / change.after()).as("cut to 0.85 of the rate").isCloseTo(1 / 0.85, within(1e-9));
    assertThat(change.holdMicros() - change.atMicros()).as("the provider's 3 s").isEqualTo(3_000_000);
    assertThat(moved.slotMicros()).as("its slot 1 s after the cut's, stretched by 1 / 0.85, after the 3 s")
        .isEqualTo(change.moved(sleeping.slotMicros()))
        // within 1 us: the stored factor is 0.85 as the script's double arithmetic left it, not the literal 0.85
        .isCloseTo(change.holdMicros() + (long) Math.ceil((sleeping.slotMicros() - change.atMicros()) / 0.85),
            within(1L));
    assertThat(theirs.slotMicros() - moved.slotMicros()).as("in their order, one slot of the new rate apart")
        .isBetween(1_176_470L, 1_176_472L);
    assertThat(a.channel().reads()).as("moved from the state read once for the message: no round trip of its own")
        .isEqualTo(reads);
    assertThat(a.validity(moved)).isEqualTo(TokenBucket.Validity.VALID);
    Acquisition next = a.acquire(1, Duration.ofSeconds(10));
    assertThat(next.slotMicros() - theirs.slotMicros())
        .as("a call booked after the cut goes after both, a slot of the rate in force later (climbing back from 0.85)")
        .isBetween(1_000_000L, 1_176_472L);
  }

  /**
   * The adversarial test's fourth finding: one well-formed message ({@code <current epoch>:9223372036854775806})
   * made every subscribed process void every slot, forever. A message is now only a hint to read the state: a
   * generation the state does not hold changes nothing (nor does garbage), and a real cut still reaches everyone.
   */
  @Test
  void aMessageOnTheChannelIsOnlyAHintThatTheStateMustConfirm(TestRedis redis) throws Exception {
    RedisTokenBucket[] ab = twoProcesses(redis, "hint");
    RedisTokenBucket a = ab[0];
    RedisTokenBucket b = ab[1];
    a.acquire(1, Duration.ZERO);
    Acquisition sleeping = a.acquire(1, Duration.ofSeconds(10));
    RTopic channel = redis.newRedisson().getTopic(a.config().key() + ":fleet", StringCodec.INSTANCE);
    for (String message : new String[] {StepStamp.of(sleeping.stamp()).epoch() + ":9223372036854775806",
        StepStamp.of(sleeping.stamp()).epoch() + ":" + (StepStamp.of(sleeping.stamp())
            .generation() + 1), "garbage", ":", "1:2:3"}) {
      int readsBefore = a.channel().reads();
      channel.publish(message);
      if (message.startsWith(Long.toString(StepStamp.of(sleeping.stamp()).epoch()))) {
        Awaits.until("the hint read: " + message, Duration.ofSeconds(5), () -> a.channel().reads() > readsBefore);
      }
      assertThat(a.validity(sleeping))
          .as("after '%s': the state holds no such generation", message).isNotEqualTo(TokenBucket.Validity.RATE_CUT);
    }
    Acquisition next = a.acquire(1, Duration.ofSeconds(10));
    assertThat(next.granted()).isTrue();
    assertThat(a.validity(next)).as("new slots are good").isNotEqualTo(TokenBucket.Validity.RATE_CUT);
    Acquisition refused = b.acquire(1, Duration.ofSeconds(10));
    assertThat(b.providerRefused(refused, Duration.ofSeconds(1))).isEqualTo(TokenBucket.Refusal.CUT);
    Awaits.until("a real cut, confirmed by the state, still reaches the other process without a call of its own",
        Duration.ofSeconds(5), () -> a.validity(sleeping) == TokenBucket.Validity.RATE_CUT
            && a.validity(next) == TokenBucket.Validity.RATE_CUT);
  }

  /**
   * The adversarial test's second finding: a replica's configuration with a day's lease held the fleet to its
   * settings long after it stopped. A lease longer than the fleet's bound (30 s by default) is cut back at the next
   * call, and counted; an operator clears a configuration at once.
   */
  @Test
  void aStaleConfigurationCountsAtMostTheFleetsLeaseAndAnOperatorClearsIt(TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("stale").keyPrefix(redis.keyPrefix()).limit(8, 9).build();
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config);
    bucket.acquire(1, Duration.ZERO);
    try (RespConnection admin = redis.rawConnection()) {
      long now = redisMicros(admin);
      admin.call("HSET", config.key(), "c:1.0:0.01", Long.toString(now + 86_400_000_000L)); // an older SDK's lease
      Acquisition a = bucket.acquire(1, Duration.ZERO);
      assertThat(bucket.readings().configurations()).isEqualTo(2);
      assertThat(bucket.readings().stateRepairs()).as("a lease beyond the fleet's bound is a repair").isEqualTo(1);
      long lease = Long.parseLong((String) admin.call("HGET", config.key(), "c:1.0:0.01"));
      assertThat(lease - a.decidedAtMicros()).as("cut back to 30 s").isEqualTo(30_000_000L);
      assertThat(bucket.state().configurations()).containsExactly("1.0:0.01", "8.0:9.0");
      assertThat(bucket.clearConfiguration("1.0:0.01")).isTrue();
      assertThat(bucket.clearConfiguration("1.0:0.01")).as("gone").isFalse();
      bucket.acquire(1, Duration.ZERO);
      assertThat(bucket.readings().configurations()).isEqualTo(1);
      assertThat(bucket.state().configurations()).containsExactly("8.0:9.0");
    }
  }

  private static long redisMicros(RespConnection admin) {
    List<?> time = (List<?>) admin.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
  }

  /** Two processes (two Redisson clients) on one bucket of 1 + 1/s, both subscribed to its channel. */
  private static RedisTokenBucket[] twoProcesses(TestRedis redis, String name) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom(name).keyPrefix(redis.keyPrefix()).limit(1, 1).build();
    RedisTokenBucket a = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config);
    RedisTokenBucket b = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config);
    a.preload();
    b.preload();
    Awaits.until("both subscriptions in place (made without waiting)", Duration.ofSeconds(5),
        () -> a.channel().subscribed() && b.channel().subscribed());
    return new RedisTokenBucket[] {a, b};
  }

  /** Waits (really, at most 5 s) for a state that another connection's message brings. */
  @Test
  void replicasThatDisagreeAreCountedAndNamedOnceAMinute(TestRedis redis) throws Exception {
    try (StdErrCapture logs = new StdErrCapture()) {
      RedisTokenBucket good = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
          TokenBucketConfig.custom("disagree")
          .keyPrefix(redis.keyPrefix()).limit(8, 9).build());
      RedisTokenBucket wrong = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
          TokenBucketConfig.custom("disagree")
          .keyPrefix(redis.keyPrefix()).limit(20, 30).limit(600, 10).build());
      good.acquire(1, Duration.ZERO);
      assertThat(good.readings().configurations()).isEqualTo(1);
      for (int i = 0; i < 5; i++) {
        wrong.acquire(1, Duration.ZERO);
        good.acquire(1, Duration.ZERO);
      }
      assertThat(good.readings().configurations()).isEqualTo(2);
      assertThat(wrong.readings().configurations()).isEqualTo(2);
      assertThat(logs.count("replicas use 2 configurations")).as("once a minute per process").isEqualTo(2);
      assertThat(logs.text()).contains("8.0:9.0 (this process), 20.0:30.0,600.0:10.0")
          .contains("20.0:30.0,600.0:10.0 (this process), 8.0:9.0");
    }
  }
}
