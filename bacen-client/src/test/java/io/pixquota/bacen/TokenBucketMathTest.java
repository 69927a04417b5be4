package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * The bucket's arithmetic, step by step, against real Redis with a client clock the test moves: nothing sleeps.
 * Burst 8, 9 tokens per second unless a test says otherwise.
 */
@ExtendWith(RedisExtension.class)
class TokenBucketMathTest {
  private static final Duration LONG = Duration.ofMinutes(10);

  private RedissonClient redisson;
  private TestRedis redis;
  private final MutableClock clock = MutableClock.atSeconds(1_000);

  @BeforeEach
  void setUp(TestRedis redis) {
    this.redis = redis;
    this.redisson = redis.newRedisson();
  }

  private RedisTokenBucket bucket(TokenBucketConfig.Builder builder) {
    return RedisTokenBucket.create(redisson, builder.keyPrefix(redis.keyPrefix()).clientClock(clock).build());
  }

  private RedisTokenBucket bucket(double capacity, double rate) {
    return bucket(TokenBucketConfig.custom("pix").limit(capacity, rate));
  }

  private static long waitMicros(Acquisition a) {
    return a.waitTime().toNanos() / 1000;
  }

  @Test
  void burstOfCapacityPassesAtOnceAndTheNextWaitsOneOverRate() throws Exception {
    RedisTokenBucket bucket = bucket(8, 9);
    for (int i = 1; i <= 8; i++) {
      Acquisition a = bucket.acquire(1, Duration.ZERO);
      assertThat(a.granted()).as("call %d", i).isTrue();
      assertThat(a.waitTime()).as("call %d", i).isZero();
      assertThat(a.remaining()).as("call %d", i).isCloseTo(8 - i, within(1e-9));
    }
    Acquisition ninth = bucket.acquire(1, LONG);
    assertThat(ninth.granted()).isTrue();
    assertThat(waitMicros(ninth)).isEqualTo(111_112); // ceil(1e6 / 9)
    assertThat(ninth.remaining()).isCloseTo(-1, within(1e-9));
    Acquisition tenth = bucket.acquire(1, LONG);
    assertThat(waitMicros(tenth)).isEqualTo(222_223);
    assertThat(tenth.slotMicros() - ninth.slotMicros()).isEqualTo(111_111);
  }

  @Test
  void partialRefillAfterAGivenInterval() throws Exception {
    RedisTokenBucket bucket = bucket(8, 9);
    for (int i = 0; i < 8; i++) {
      bucket.acquire(1, Duration.ZERO);
    }
    clock.advanceMillis(500); // + 4.5 tokens
    Acquisition a = bucket.acquire(1, Duration.ZERO);
    assertThat(a.granted()).isTrue();
    assertThat(a.remaining()).isCloseTo(3.5, within(1e-9));
    clock.advanceMillis(100); // + 0.9
    assertThat(bucket.acquire(4, Duration.ZERO).remaining()).isCloseTo(0.4, within(1e-9));
    Acquisition short1 = bucket.acquire(1, Duration.ZERO);
    assertThat(short1.granted()).isFalse();
    assertThat(waitMicros(short1)).isEqualTo(66_667); // 0.6 / 9 s
  }

  @Test
  void longIdleNeverExceedsCapacity() throws Exception {
    RedisTokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO);
    clock.advance(Duration.ofHours(5));
    Acquisition a = bucket.acquire(1, Duration.ZERO);
    assertThat(a.remaining()).isCloseTo(7, within(1e-9));
    Acquisition all = bucket.acquire(7, Duration.ZERO);
    assertThat(all.granted()).isTrue();
    assertThat(bucket.acquire(1, Duration.ZERO).granted()).isFalse();
  }

  @Test
  void fractionalCostOfTwoAndAHalf() throws Exception {
    RedisTokenBucket bucket = bucket(8, 9);
    assertThat(bucket.acquire(2.5, Duration.ZERO).remaining()).isCloseTo(5.5, within(1e-9));
    assertThat(bucket.acquire(2.5, Duration.ZERO).remaining()).isCloseTo(3.0, within(1e-9));
    assertThat(bucket.acquire(2.5, Duration.ZERO).remaining()).isCloseTo(0.5, within(1e-9));
    Acquisition fourth = bucket.acquire(2.5, LONG);
    assertThat(fourth.granted()).isTrue();
    assertThat(waitMicros(fourth)).isEqualTo(222_223); // (2.5 - 0.5) / 9 s
    assertThat(fourth.remaining()).isCloseTo(-2.0, within(1e-9));
  }

  @Test
  void aCallThatWouldWaitTooLongIsRefusedAndConsumesNothing() throws Exception {
    RedisTokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO);
    Acquisition refused = bucket.acquire(2, Duration.ofMillis(100));
    assertThat(refused.granted()).isFalse();
    assertThat(waitMicros(refused)).isEqualTo(222_223);
    assertThat(refused.remaining()).isCloseTo(0, within(1e-9));
    // Nothing was booked: the same request with room to wait gets exactly the slot the refusal quoted.
    Acquisition granted = bucket.acquire(2, Duration.ofMillis(300));
    assertThat(granted.granted()).isTrue();
    assertThat(waitMicros(granted)).isEqualTo(222_223);
    assertThat(granted.slotMicros()).isEqualTo(refused.slotMicros());
  }

  @Test
  void lateClockMintsNoToken() throws Exception {
    RedisTokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO); // drained at t = 1000 s
    clock.setSeconds(990); // a replica whose clock is 10 s late
    Acquisition late = bucket.acquire(1, Duration.ZERO);
    assertThat(late.granted()).isFalse();
    assertThat(waitMicros(late)).isEqualTo(111_112); // as if no time had passed, not 10 s of refill
    clock.setSeconds(1000.5); // back to the right time: refill counts from 1000 s, so 4.5 tokens
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).isCloseTo(3.5, within(1e-9));
  }

  @Test
  void earlyClockFollowedByNormalOneMintsNoneEither() throws Exception {
    RedisTokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO); // drained at t = 1000 s
    clock.setSeconds(1000.5); // an early replica sees 4.5 tokens already
    assertThat(bucket.acquire(4, Duration.ZERO).remaining()).isCloseTo(0.5, within(1e-9));
    // The replica with the right clock, still at 1000.25 and then at 1000.5, finds no refill of its own.
    clock.setSeconds(1000.25);
    Acquisition normal = bucket.acquire(1, Duration.ZERO);
    assertThat(normal.granted()).isFalse();
    assertThat(normal.remaining()).isCloseTo(0.5, within(1e-9));
    clock.setSeconds(1000.5);
    assertThat(bucket.acquire(1, Duration.ZERO).granted()).isFalse();
    // 4 tokens granted over [1000, 1000.5]: within r * 0.5 = 4.5, nothing minted twice.
  }

  @Test
  void severalLimitsAreCheckedTogetherAndTheLargestWaitWins() throws Exception {
    RedisTokenBucket bucket = bucket(TokenBucketConfig.custom("pix").limit(5, 10).limit(8, 1));
    for (int i = 0; i < 5; i++) {
      assertThat(bucket.acquire(1, Duration.ZERO).waitTime()).isZero();
    }
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(100_000); // limit 1: 1/10 s
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(200_000);
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(300_000);
    // 9th call: limit 1 needs 0.4 s, limit 2 (8 tokens, 1/s) is empty and needs 1 s.
    Acquisition ninth = bucket.acquire(1, LONG);
    assertThat(waitMicros(ninth)).isEqualTo(1_000_000);
    assertThat(ninth.remaining()).isCloseTo(-4, within(1e-9)); // limit 1 is 4 tokens in debt
  }

  @Test
  void chargeAfterTheFactDelaysLaterCallersAndRefundNeverExceedsCapacity() throws Exception {
    RedisTokenBucket bucket = bucket(10, 10);
    bucket.acquire(1, Duration.ZERO);
    assertThat(bucket.charge(19)).isCloseTo(-10, within(1e-9)); // a 404 that costs 20 in all
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(1_100_000);
    assertThat(bucket.refund(5)).isCloseTo(-6, within(1e-9));
    assertThat(bucket.refund(100)).isCloseTo(10, within(1e-9));
  }
}
