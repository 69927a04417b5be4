package io.pixquota.bacen;

import io.pixquota.throttle.redis.RedissonStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.harness.FreePorts;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.BucketUnavailableException;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * Redis faults with a private redis-server, in real time: slow (SIGSTOP), restarted without persistence, down at start.
 */
class RedisFaultsIT {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  @Test
  void aPausedRedisCostsAtMostTheRedisTimeoutThenATypedErrorAndNoThreadIsHeld() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start()) {
      RedissonClient redisson = Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
      try {
        RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.custom("slow")
            .limit(10, 10).redisTimeout(Duration.ofMillis(200)).build());
        assertThat(bucket.acquire(1, Duration.ZERO).granted()).isTrue();
        redis.pause(); // SIGSTOP: the socket stays open, nothing answers
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<Long>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          calls.add(pool.submit(() -> {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> bucket.acquire(1, Duration.ofSeconds(30)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("Bucket 'slow' is unavailable: Redis did not answer within the timeout "
                    + "(redisTimeout 200 ms)");
            return (System.nanoTime() - t0) / 1_000_000;
          }));
        }
        for (Future<Long> f : calls) {
          assertThat(f.get(5, TimeUnit.SECONDS)).as("ms a caller was held").isBetween(150L, 700L);
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(1, TimeUnit.SECONDS)).isTrue();
        redis.resume();
        Acquisition after = Awaits.value("works again once Redis answers", Duration.ofSeconds(10),
            () -> bucket.acquire(1, Duration.ZERO));
      } finally {
        redisson.shutdown();
      }
    }
  }

  @Test
  void aRestartWithoutPersistenceRefillsTheBucketAdmittingAtMostOneExtraBurst() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start()) {
      RedissonClient redisson = Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
      try {
        RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson),
            TokenBucketConfig.custom("restart")
            .limit(8, 0.01).build());
        int before = 0;
        while (bucket.acquire(1, Duration.ZERO).granted()) {
          before++;
        }
        redis.restart(); // no AOF, no RDB: the bucket is forgotten
        Thread.sleep(150); // past the 100 ms a refusal is remembered without asking Redis again
        int after = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
          try {
            if (!bucket.acquire(1, Duration.ZERO).granted()) {
              break;
            }
            after++;
          } catch (StoreUnavailableException reconnecting) {
            Thread.sleep(50);
          }
        }
        assertThat(before).isEqualTo(8);
        assertThat(after).as("the extra admission is exactly one burst B, never more").isEqualTo(8);
      } finally {
        redisson.shutdown();
      }
    }
  }

  @Test
  void redisDownAtStartFailsClosedAndTheClientRecoversWhenRedisComesUp() throws Exception {
    int port = FreePorts.pick();
    try (MockBacen mock = MockBacen.start(MockConfig.defaults());
        PixClient pix = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
            .credentials("demo", "demo-secret").redisUrl("redis://127.0.0.1:" + port)
            .redisTimeout(Duration.ofMillis(300)).build()).build()) {
      for (int i = 0; i < 3; i++) {
        assertThatThrownBy(() -> pix.getPix(E2E)).isInstanceOf(PixThrottledException.class)
            .hasCauseInstanceOf(BucketUnavailableException.class);
      }
      assertThat(mock.stats("demo", false).get("accepted")).as("no call made without the bucket").isEqualTo(0L);
      try (PrivateRedisServer redis = PrivateRedisServer.startOn(port)) {
        assertThat(redis.isAlive()).isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        boolean served = false;
        while (!served && System.nanoTime() < deadline) {
          try {
            served = pix.getPix(E2E) != null;
          } catch (PixThrottledException stillDown) {
            Thread.sleep(100);
          }
        }
        assertThat(served).as("recovers by itself, no restart of the client").isTrue();
      }
    }
  }
}
