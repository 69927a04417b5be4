package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.RespConnection;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
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
  void aCutByOneProcessVoidsTheOthersSlotsAtOnceThroughTheChannel(TestRedis redis) throws Exception {
    RedisTokenBucket[] ab = twoProcesses(redis, "news");
    RedisTokenBucket a = ab[0];
    RedisTokenBucket b = ab[1];
    a.acquire(1, Duration.ZERO);
    Acquisition sleeping = a.acquire(1, Duration.ofSeconds(10)); // a's caller, booked at 1 s
    Acquisition refused = b.acquire(1, Duration.ofSeconds(10));
    assertThat(b.providerRefused(refused, Duration.ofSeconds(3))).isTrue();
    awaitTrue(() -> a.superseded(sleeping), "a hears of the cut through the channel, with no call of its own");
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
    for (String message : new String[] {sleeping.stateEpoch() + ":9223372036854775806",
        sleeping.stateEpoch() + ":" + (sleeping.rateGeneration() + 1), "garbage", ":", "1:2:3"}) {
      int readsBefore = a.channel().reads();
      channel.publish(message);
      if (message.startsWith(Long.toString(sleeping.stateEpoch()))) {
        awaitTrue(() -> a.channel().reads() > readsBefore, "the hint read: " + message);
      }
      assertThat(a.superseded(sleeping)).as("after '%s': the state holds no such generation", message).isFalse();
    }
    Acquisition next = a.acquire(1, Duration.ofSeconds(10));
    assertThat(next.granted()).isTrue();
    assertThat(a.superseded(next)).as("new slots are good").isFalse();
    Acquisition refused = b.acquire(1, Duration.ofSeconds(10));
    assertThat(b.providerRefused(refused, Duration.ofSeconds(1))).isTrue();
    awaitTrue(() -> a.superseded(sleeping) && a.superseded(next), "a real cut, confirmed by the state, still "
        + "reaches the other process without a call of its own");
  }

  /**
   * The adversarial test's second finding: a replica's configuration with a day's lease held the fleet to its
   * settings long after it stopped. A lease longer than the fleet's bound (5 min) is cut back at the next call, and
   * counted; an operator clears a configuration at once.
   */
  @Test
  void aStaleConfigurationCountsAtMostTheFleetsLeaseAndAnOperatorClearsIt(TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("stale").keyPrefix(redis.keyPrefix()).limit(8, 9).build();
    RedisTokenBucket bucket = RedisTokenBucket.create(redis.newRedisson(), config);
    bucket.acquire(1, Duration.ZERO);
    try (RespConnection admin = redis.rawConnection()) {
      long now = redisMicros(admin);
      admin.call("HSET", config.key(), "c:1.0:0.01", Long.toString(now + 86_400_000_000L)); // an older SDK's lease
      Acquisition a = bucket.acquire(1, Duration.ZERO);
      assertThat(bucket.configurations()).isEqualTo(2);
      assertThat(bucket.stateRepairs()).as("a lease beyond the fleet's bound is a repair").isEqualTo(1);
      long lease = Long.parseLong((String) admin.call("HGET", config.key(), "c:1.0:0.01"));
      assertThat(lease - a.decidedAtMicros()).as("cut back to 300 s").isEqualTo(300_000_000L);
      assertThat(bucket.state().configurations()).containsExactly("1.0:0.01", "8.0:9.0");
      assertThat(bucket.clearConfiguration("1.0:0.01")).isTrue();
      assertThat(bucket.clearConfiguration("1.0:0.01")).as("gone").isFalse();
      bucket.acquire(1, Duration.ZERO);
      assertThat(bucket.configurations()).isEqualTo(1);
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
    RedisTokenBucket a = RedisTokenBucket.create(redis.newRedisson(), config);
    RedisTokenBucket b = RedisTokenBucket.create(redis.newRedisson(), config);
    a.preload();
    b.preload();
    awaitTrue(() -> a.subscribed() && b.subscribed(), "both subscriptions in place (made without waiting)");
    return new RedisTokenBucket[] {a, b};
  }

  /** Waits (really, at most 5 s) for a state that another connection's message brings. */
  private static void awaitTrue(BooleanSupplier state, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!state.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 5 s: " + what);
      }
      Thread.onSpinWait();
      TimeUnit.MILLISECONDS.sleep(1);
    }
  }

  @Test
  void replicasThatDisagreeAreCountedAndNamedOnceAMinute(TestRedis redis) throws Exception {
    try (StdErrCapture logs = new StdErrCapture()) {
      RedisTokenBucket good = RedisTokenBucket.create(redis.newRedisson(), TokenBucketConfig.custom("disagree")
          .keyPrefix(redis.keyPrefix()).limit(8, 9).build());
      RedisTokenBucket wrong = RedisTokenBucket.create(redis.newRedisson(), TokenBucketConfig.custom("disagree")
          .keyPrefix(redis.keyPrefix()).limit(20, 30).limit(600, 10).build());
      good.acquire(1, Duration.ZERO);
      assertThat(good.configurations()).isEqualTo(1);
      for (int i = 0; i < 5; i++) {
        wrong.acquire(1, Duration.ZERO);
        good.acquire(1, Duration.ZERO);
      }
      assertThat(good.configurations()).isEqualTo(2);
      assertThat(wrong.configurations()).isEqualTo(2);
      assertThat(logs.count("replicas use 2 configurations")).as("once a minute per process").isEqualTo(2);
      assertThat(logs.text()).contains("8.0:9.0 (this process), 20.0:30.0,600.0:10.0")
          .contains("20.0:30.0,600.0:10.0 (this process), 8.0:9.0");
    }
  }
}
