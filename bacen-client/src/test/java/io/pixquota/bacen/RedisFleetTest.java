package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fleet's news through Redis between two processes (two Redisson clients): a cut voids the other process's
 * sleeping slots through the bucket's channel, without a call of its own; and replicas that disagree are named.
 */
@ExtendWith(RedisExtension.class)
class RedisFleetTest {
  @Test
  void aCutByOneProcessVoidsTheOthersSlotsAtOnceThroughTheChannel(TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("news").keyPrefix(redis.keyPrefix()).limit(1, 1).build();
    RedisTokenBucket a = RedisTokenBucket.create(redis.newRedisson(), config);
    RedisTokenBucket b = RedisTokenBucket.create(redis.newRedisson(), config);
    a.preload();
    b.preload();
    awaitTrue(() -> a.subscribed() && b.subscribed(), "both subscriptions in place (made without waiting)");
    a.acquire(1, Duration.ZERO);
    Acquisition sleeping = a.acquire(1, Duration.ofSeconds(10)); // a's caller, booked at 1 s
    Acquisition refused = b.acquire(1, Duration.ofSeconds(10));
    assertThat(b.providerRefused(refused, Duration.ofSeconds(3))).isTrue();
    awaitTrue(() -> a.superseded(sleeping), "a hears of the cut through the channel, with no call of its own");
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
