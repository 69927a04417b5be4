package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucketContract;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.FreePorts;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.redisson.api.RedissonClient;

/**
 * The contract for the LOCAL_FALLBACK decorator while Redis does not answer (nothing listens on its port), with a
 * local share of 1: the local bucket must keep every promise of the shared one.
 */
class FallbackTokenBucketWhileRedisIsDownTest extends TokenBucketContract {
  private final RecordingListener listener = new RecordingListener();
  private RedissonClient redisson;

  @AfterEach
  void fellBackOnceAndStayed() {
    redisson.shutdown();
    List<String> events = listener.events();
    assertThat(events).as("store errors and switches: into the fallback, never out")
        .noneMatch(e -> e.endsWith("false"));
    if (!events.isEmpty()) {
      assertThat(events.get(0)).startsWith("failed ");
      assertThat(events.get(1)).startsWith("fallback ").endsWith(" true");
    }
  }

  @Override
  protected boolean clockIsTheStores() {
    return true;
  }

  @Override
  protected TokenBucket bucket(String name, List<Limit> limits) {
    redisson = RedisAddress.parse("redis://127.0.0.1:" + FreePorts.pick()).connect(Duration.ofMillis(500));
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).clientClock(time.clock());
    limits.forEach(config::limit);
    return new FallbackTokenBucket(RedisTesting.create(redisson, config.build(), time), 1, Duration.ofHours(1),
        time, listener);
  }

  /** While Redis is down, the local share (here the whole quota) keeps the shares. */
  @Override
  protected TokenBucket bucket(String name, List<Limit> limits, java.util.Map<String, Double> shares) {
    redisson = RedisAddress.parse("redis://127.0.0.1:" + FreePorts.pick()).connect(Duration.ofMillis(500));
    TokenBucketConfig.Builder config = TokenBucketConfig.custom(name).clientClock(time.clock()).shares(shares);
    limits.forEach(config::limit);
    return new FallbackTokenBucket(RedisTesting.create(redisson, config.build(), time), 1, Duration.ofHours(1),
        time, listener);
  }
}
