package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.AbstractRedisClient;
import io.pixquota.harness.RedisSentinels;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A bucket on the Lettuce client {@code connectLettuce} builds from a {@code redis-sentinel://} address, while the
 * master is killed: the calls meanwhile fail as passing, and once the Sentinels promote the replica the bucket is
 * served by it, with the state the replica had copied.
 */
class LettuceSentinelFailoverTest {
  @Test
  void aKilledMasterIsReplacedByThePromotedReplicaAndTheBucketGoesOn() throws Exception {
    try (RedisSentinels group = RedisSentinels.start()) {
      int before = group.masterPortNow();
      AbstractRedisClient lettuce = RedisAddress.parse(group.url()).connectLettuce(Duration.ofSeconds(1));
      try {
        RedisTokenBucket bucket = RedisTokenBucket.create(LettuceStore.of(lettuce), TokenBucketConfig
            .custom("sentinel").limit(100, 0.001).redisTimeout(Duration.ofMillis(500)).build());
        bucket.preload();
        assertThat(bucket.acquire(10, Duration.ZERO).granted()).isTrue();
        Thread.sleep(500); // the replica copies the state
        group.master().kill();
        Acquisition after = null;
        int passing = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (after == null && System.nanoTime() < deadline) {
          try {
            after = bucket.acquire(1, Duration.ZERO);
          } catch (StoreUnavailableException e) {
            assertThat(e.passing()).as("a failover passes: %s", e.getMessage()).isTrue();
            passing++;
            Thread.sleep(200);
          }
        }
        assertThat(after).as("served again after the promotion").isNotNull();
        assertThat(group.masterPortNow()).as("the replica promoted").isNotEqualTo(before)
            .isEqualTo(group.replica().port());
        assertThat(passing).as("calls failed while no master was known").isPositive();
        assertThat(after.granted()).isTrue();
        assertThat(after.remaining()).as("the state the replica had copied: 100 - 10 - 1").isCloseTo(89,
            org.assertj.core.api.Assertions.within(0.5));
      } finally {
        lettuce.shutdown();
      }
    }
  }
}
