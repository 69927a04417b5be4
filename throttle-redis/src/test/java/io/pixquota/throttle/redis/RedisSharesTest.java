package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Shares within a Redis bucket across a fleet (issue 46): replicas of one plan, each on its own Redisson client,
 * decide together; a replica without the shares on the same bucket suspends them (every call first come, first
 * served, within the bucket), and once it is gone they decide again; a pool beside the bucket books a flow's slot on
 * its share in the same step. On a private Redis whose clock follows the test's.
 */
class RedisSharesTest {
  private static final Duration LONG = Duration.ofMinutes(10);
  private static final Map<String, Double> SHARES = Map.of("checkout", 6.0, "merchant-api", 3.0, "*", 0.0);
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private RedisOnFakeTime redis;
  private RedissonClient other;

  @BeforeEach
  void start() {
    redis = new RedisOnFakeTime(time);
    other = redis.newRedisson();
  }

  @AfterEach
  void stop() {
    other.shutdown();
    redis.close();
  }

  private RedisTokenBucket replica(RedissonClient client, Map<String, Double> shares) {
    return RedisTokenBucket.create(RedissonStore.of(client), TokenBucketConfig.custom("pix").limit(8,
        9).shares(shares).build(), time);
  }

  private static long stormed(TokenBucket storm) throws Exception {
    long borrowed = 0;
    for (int i = 0; i < 40; i++) {
      Acquisition a = storm.acquire(1, LONG);
      assertThat(a.granted()).isTrue();
      borrowed += "merchant-api".equals(a.tokensOf()) ? 0 : 1;
    }
    return borrowed;
  }

  @Test
  void twoReplicasOfOnePlanShareOneGuarantee() throws Exception {
    RedisTokenBucket merchantApi = replica(redis.redisson, SHARES);
    RedisTokenBucket checkout = replica(other, SHARES);
    assertThat(checkout.forFlow("checkout").acquire(1, Duration.ZERO).tokensOf()).isEqualTo("checkout");
    assertThat(stormed(merchantApi.forFlow("merchant-api"))).as("all but the call checkout keeps while it asks")
        .isEqualTo(3);
    Acquisition a = checkout.forFlow("checkout").acquire(1, Duration.ZERO);
    assertThat(a.granted()).as("another replica's checkout call: its share is there").isTrue();
    assertThat(a.tokensOf()).isEqualTo("checkout");
  }

  @Test
  void aReplicaWithoutTheSharesSuspendsThemUntilItIsGone() throws Exception {
    RedisTokenBucket shared = replica(redis.redisson, SHARES);
    RedisTokenBucket plain = replica(other, null);
    assertThat(plain.acquire(1, Duration.ZERO).tokensOf()).isNull();
    assertThat(stormed(shared.forFlow("merchant-api"))).as("nothing borrowed: no shares in force").isEqualTo(40);
    Acquisition behind = shared.forFlow("checkout").acquire(1, LONG);
    assertThat(behind.tokensOf()).isNull();
    assertThat(behind.waitTime()).as("first come, first served: behind the storm's 40 - 7 booked ahead")
        .isGreaterThan(Duration.ofMillis(3_600));
    plain.close();
    time.advance(Duration.ofSeconds(1));
    Acquisition back = shared.forFlow("checkout").acquire(1, LONG);
    assertThat(back.tokensOf()).as("the shares decide again, from the bucket's tokens").isEqualTo("checkout");
    assertThat(back.waitTime()).as("what was booked ahead stays booked: the sub-buckets start from the bucket")
        .isGreaterThan(Duration.ZERO);
  }

  @Test
  void anotherPlanSuspendsThemToo() throws Exception {
    RedisTokenBucket shared = replica(redis.redisson, SHARES);
    RedisTokenBucket otherPlan = replica(other, Map.of("checkout", 1.0, "*", 1.0));
    assertThat(otherPlan.forFlow("checkout").acquire(1, Duration.ZERO).tokensOf()).as("alone: its plan decides")
        .isEqualTo("checkout");
    assertThat(shared.forFlow("checkout").acquire(1, Duration.ZERO).tokensOf()).as("two plans: none").isNull();
    assertThat(otherPlan.forFlow("checkout").acquire(1, Duration.ZERO).tokensOf()).isNull();
  }

  @Test
  void aPoolBesideTheBucketBooksTheFlowsShareInTheSameStep() throws Exception {
    RedisTokenBucket bucket = replica(redis.redisson, SHARES);
    PermitPool pool = bucket.permitPool("pix-spi", 2, Duration.ofSeconds(30));
    PermitPool.PermitAnswer answer = pool.take(PermitPool.Waiter.of(0),
        new PermitPool.SlotAsk(bucket.forFlow("checkout"), 1, LONG));
    assertThat(answer.permit()).isNotNull();
    assertThat(answer.acquisition()).as("the slot decided with the permit").isNotNull();
    assertThat(answer.acquisition().tokensOf()).isEqualTo("checkout");
  }
}
