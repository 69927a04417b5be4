package com.example.pixstatus;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.IOException;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * What a test class of the application talks to: a mock BACEN of its own (10 + 10/s), and the Redis the build gives
 * ({@code -Dredis.url}), else a private redis-server, ended with the class.
 */
final class TestProvider implements AutoCloseable {
  final MockBacen mock;
  final String redisUrl;
  private final PrivateRedisServer ownRedis;

  private TestProvider(MockBacen mock, PrivateRedisServer ownRedis, String redisUrl) {
    this.mock = mock;
    this.ownRedis = ownRedis;
    this.redisUrl = redisUrl;
  }

  static TestProvider start() {
    MockBacen mock;
    try {
      mock = MockBacen.start(MockConfig.defaults());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    String given = System.getProperty("redis.url", "");
    PrivateRedisServer own = given.isBlank() || given.startsWith("$") ? PrivateRedisServer.start() : null;
    return new TestProvider(mock, own, own != null ? own.uri().toString() : given);
  }

  /**
   * The application's properties that point at them: the provider's address and host (its quota {@code pix} takes the
   * mock's requests), and the Redis keys under {@code keyPrefix}, the test class's own.
   */
  void register(DynamicPropertyRegistry registry, String keyPrefix) {
    registry.add("pixquota.provider.base-url", () -> mock.pixUrl().toString());
    registry.add("pixquota.quotas.pix.host", () -> mock.pixUrl().getHost());
    registry.add("pixquota.redis.url", () -> redisUrl);
    registry.add("pixquota.bucket.key-prefix", () -> keyPrefix);
  }

  @Override
  public void close() {
    mock.close();
    if (ownRedis != null) {
      ownRedis.close();
    }
  }
}
