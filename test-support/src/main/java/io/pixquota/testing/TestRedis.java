package io.pixquota.testing;

import io.pixquota.harness.Redissons;
import io.pixquota.harness.RespConnection;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * One test's view of the shared Redis: the server's URI, a key prefix no other test uses, and Redisson clients that
 * are shut down when the test ends. Injected by {@link RedisExtension}.
 */
public final class TestRedis implements AutoCloseable {
  private final SharedRedis.Choice server;
  private final String keyPrefix;
  private final List<RedissonClient> clients = new ArrayList<>();

  TestRedis(SharedRedis.Choice server, String keyPrefix) {
    this.server = server;
    this.keyPrefix = keyPrefix;
  }

  /** {@code redis://host:port} of the shared server. */
  public URI uri() {
    return server.uri();
  }

  public SharedRedis.Source source() {
    return server.source();
  }

  /** A prefix unique to this test; every key the test writes should start with it. */
  public String keyPrefix() {
    return keyPrefix;
  }

  /** A new Redisson client with its own connections, shut down after the test. */
  public synchronized RedissonClient newRedisson() {
    RedissonClient client = Redisson.create(redissonConfig(uri().toString()));
    clients.add(client);
    return client;
  }

  /** A raw RESP connection to the shared server, for administration in tests (closed by the caller). */
  public RespConnection rawConnection() {
    return RespConnection.open(server.host(), server.port());
  }

  /** Redisson settings fit for tests: small pools, short timeouts, no retries that would hide a fault. */
  public static Config redissonConfig(String address) {
    return Redissons.smallPool(address);
  }

  @Override
  public synchronized void close() {
    for (RedissonClient client : clients) {
      client.shutdown(0, 2, TimeUnit.SECONDS);
    }
    clients.clear();
  }
}
