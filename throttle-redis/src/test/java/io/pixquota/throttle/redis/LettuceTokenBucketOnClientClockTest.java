package io.pixquota.throttle.redis;

import io.lettuce.core.RedisClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/** The token bucket contract in client-clock mode on the shared test Redis, through Lettuce instead of Redisson. */
class LettuceTokenBucketOnClientClockTest extends RedisTokenBucketOnClientClockTest {
  private final List<RedisClient> clients = new ArrayList<>();

  @Override
  RedisStore newStore() {
    RedisClient client = RedisClient.create(redis.uri().toString());
    clients.add(client);
    return LettuceStore.of(client);
  }

  @AfterEach
  void shutDown() {
    clients.forEach(RedisClient::shutdown);
  }
}
