package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.testing.PrivateRedisServer;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/** Faults repeated: Redis killed in the middle of bursts; replicas whose clocks are 10 s early and late. */
@ExtendWith(RedisExtension.class)
class FaultsUnderLoadTest {

  @Test
  void redisKilledTwentyTimesMidBurstOverAdmitsNothingAndLosesNoCallSilently() throws Exception {
    int rounds = 20;
    int calls = 16;
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(10, 30, 1000)).build())) {
      // provider 10 + 30/s, client 5 + 25/s: safe for a delay spread J up to (10 - 5) / 25 = 200 ms
      RedissonClient redisson = Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
      ExecutorService pool = Executors.newFixedThreadPool(calls);
      int served = 0;
      int typed = 0;
      try (PixClient pix = PixClient.builder(PixClientConfig.builder().baseUrl(mock.url())
          .credentials("demo", "demo-secret").bucket(5, 25).redisTimeout(Duration.ofMillis(300))
          .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1)).build())
          .redisson(redisson).build()) {
        pix.warmUp();
        for (int round = 0; round < rounds; round++) {
          CountDownLatch go = new CountDownLatch(1);
          List<Future<String>> results = new ArrayList<>();
          for (int i = 0; i < calls; i++) {
            results.add(pool.submit(() -> {
              go.await();
              try {
                pix.getPix("E12345678202611301200ABCDEFGHIJK");
                return "served";
              } catch (PixThrottledException e) {
                return "typed";
              } catch (PixException e) {
                return "other: " + e;
              }
            }));
          }
          go.countDown();
          Thread.sleep(150); // the burst (5) has gone and a few slots after it
          redis.kill();
          for (Future<String> f : results) {
            String outcome = f.get(10, TimeUnit.SECONDS);
            assertThat(outcome).as("round %d", round).isIn("served", "typed");
            served += outcome.equals("served") ? 1 : 0;
            typed += outcome.equals("typed") ? 1 : 0;
          }
          redis.restart(); // empty: the bucket starts full again, like a Redis without persistence
          Thread.sleep(400); // let the provider refill: each round starts from a full provider bucket
          mock.reset();
          warmUpWhenRedisAnswers(pix);
        }
      } finally {
        pool.shutdownNow();
        redisson.shutdown();
      }
      assertThat(served + typed).as("every call either served or refused with a typed error").isEqualTo(rounds * calls);
      assertThat(served).isGreaterThan(rounds * 5);
      assertThat(typed).as("calls whose slot came after the kill").isPositive();
      assertThat(mock.stats("demo", false).get("refused")).as("429s in the last round").isEqualTo(0L);
    }
  }

  private static void warmUpWhenRedisAnswers(PixClient pix) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        pix.warmUp();
        return;
      } catch (PixThrottledException reconnecting) {
        if (System.nanoTime() > deadline) {
          throw reconnecting;
        }
        Thread.sleep(50);
      }
    }
  }

  @Test
  void replicasTenSecondsEarlyAndLateKeepEveryWindowWithinOneExtraBurstAndWaitsBounded(TestRedis redis)
      throws Exception {
    double capacity = 8;
    double rate = 9;
    MutableClock truth = MutableClock.atSeconds(50_000);
    MutableClock early = MutableClock.atSeconds(50_010);
    MutableClock late = MutableClock.atSeconds(49_990);
    RedissonClient client = redis.newRedisson();
    RedisTokenBucket[] replicas = new RedisTokenBucket[3];
    MutableClock[] clocks = {truth, early, late};
    for (int i = 0; i < 3; i++) {
      replicas[i] = RedisTokenBucket.create(client, TokenBucketConfig.custom("skew").keyPrefix(redis.keyPrefix())
          .clientClock(clocks[i]).limit(capacity, rate).build());
    }
    WindowAudit audit = new WindowAudit(); // slots re-based on the true clock
    Random random = new Random(3);
    long maxWaitMicros = 0;
    for (int i = 0; i < 1200; i++) { // ~3x overload for 40 simulated seconds
      long step = random.nextInt(30);
      for (MutableClock c : clocks) {
        c.advanceMillis(step);
      }
      int r = random.nextInt(3);
      Acquisition a = replicas[r].acquire(1, Duration.ofSeconds(2));
      if (a.granted()) {
        maxWaitMicros = Math.max(maxWaitMicros, a.waitTime().toNanos() / 1000);
        // the replica leaves `wait` after its own 'now'; on the true clock that is the true now + wait
        long trueSlot = truth.instant().toEpochMilli() * 1000 + a.waitTime().toNanos() / 1000;
        audit.add(new Acquisition(true, a.waitTime(), a.remaining(), trueSlot, 0), 1);
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
  void aReplicaWhoseClockIsTenSecondsAheadOfRedisMintsNothing(TestRedis redis) throws Exception {
    RedissonClient client = redis.newRedisson();
    TokenBucketConfig.Builder base = TokenBucketConfig.custom("ahead").keyPrefix(redis.keyPrefix()).limit(8, 0.5);
    RedisTokenBucket normal = RedisTokenBucket.create(client, TokenBucketConfig.from(base.build())
        .clientClock(java.time.Clock.systemUTC()).build());
    RedisTokenBucket early = RedisTokenBucket.create(client, TokenBucketConfig.from(base.build())
        .clientClock(java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofSeconds(10))).build());
    RedisTokenBucket late = RedisTokenBucket.create(client, TokenBucketConfig.from(base.build())
        .clientClock(java.time.Clock.offset(java.time.Clock.systemUTC(), Duration.ofSeconds(-10))).build());
    for (int i = 0; i < 8; i++) {
      assertThat(normal.acquire(1, Duration.ZERO).granted()).isTrue();
    }
    // 10 s of refill at 0.5/s would be 5 tokens; the early clock is capped at Redis's TIME and finds none
    Acquisition fromEarly = early.acquire(1, Duration.ZERO);
    assertThat(fromEarly.granted()).isFalse();
    assertThat(fromEarly.waitTime()).isGreaterThan(Duration.ofMillis(1900)); // ~2 s: one token at 0.5/s
    assertThat(late.acquire(1, Duration.ZERO).granted()).as("and the late one finds none either").isFalse();
    assertThat(early.acquire(1, Duration.ofSeconds(3)).waitTime()).as("waits stay bounded")
        .isLessThanOrEqualTo(Duration.ofSeconds(3));
  }
}
