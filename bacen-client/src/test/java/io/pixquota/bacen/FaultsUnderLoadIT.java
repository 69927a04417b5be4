package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Faults repeated, in real time: Redis killed in the middle of bursts, twenty times: the burst's calls booked before
 * the kill leave on their slots, the ones that ask after it get a typed refusal, none is lost or over-admitted.
 */
class FaultsUnderLoadIT {

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
      try (PixClient pix = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
          .credentials("demo", "demo-secret").bucket(5, 25).redisTimeout(Duration.ofMillis(300))
          .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1)).build())
          .redisson(redisson).build()) {
        pix.warmUp();
        for (int round = 0; round < rounds; round++) {
          CountDownLatch go = new CountDownLatch(1);
          CountDownLatch killed = new CountDownLatch(1);
          List<Future<String>> results = new ArrayList<>();
          for (int i = 0; i < calls; i++) {
            CountDownLatch start = i < calls * 5 / 8 ? go : killed; // 10 in the burst, 6 more while Redis is dead
            results.add(pool.submit(() -> {
              start.await();
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
          Thread.sleep(150); // the burst (5) has gone and a few slots after it; the rest of it booked, waiting
          redis.kill();
          killed.countDown();
          for (Future<String> f : results) {
            String outcome = f.get(10, TimeUnit.SECONDS);
            assertThat(outcome).as("round %d", round).isIn("served", "typed");
            served += outcome.equals("served") ? 1 : 0;
            typed += outcome.equals("typed") ? 1 : 0;
          }
          redis.restart(); // empty: the bucket starts full again, like a Redis without persistence
          Thread.sleep(400); // let the provider refill: each round starts from a full provider bucket
          mock.reset();
          LoadUnderFault.warmUpWhenRedisAnswers(pix, Duration.ofSeconds(10));
        }
      } finally {
        pool.shutdownNow();
        redisson.shutdown();
      }
      assertThat(served + typed).as("every call either served or refused with a typed error").isEqualTo(rounds * calls);
      assertThat(served).isGreaterThan(rounds * 5);
      assertThat(typed).as("calls that asked after the kill").isPositive();
      assertThat(mock.stats("demo", false).get("refused")).as("429s in the last round").isEqualTo(0L);
    }
  }
}
