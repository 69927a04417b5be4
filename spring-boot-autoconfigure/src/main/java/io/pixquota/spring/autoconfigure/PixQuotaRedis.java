package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.redis.RedisAddress;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The Redis the shared bucket lives in: the application's own {@link RedissonClient} bean when it has one (left
 * alone at shutdown), else one made from {@code pixquota.redis.url} (shut down with the context).
 */
final class PixQuotaRedis implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PixQuotaRedis.class);

  private final RedissonClient client;
  private final boolean owned;

  private PixQuotaRedis(RedissonClient client, boolean owned) {
    this.client = client;
    this.owned = owned;
  }

  static PixQuotaRedis of(ObjectProvider<RedissonClient> application, PixQuotaSettings settings) {
    RedissonClient app = application.getIfUnique();
    if (app != null) {
      if (settings.redisUrl() != null) {
        LOG.warn("pixquota.redis.url ({}) is not used: the application's RedissonClient bean is",
            RedisAddress.redacted(settings.redisUrl()));
      }
      return new PixQuotaRedis(app, false);
    }
    if (settings.redisUrl() == null) {
      throw new InvalidConfigurationPropertyValueException("pixquota.redis.url", null, "the shared bucket needs a "
          + "Redis: set pixquota.redis.url (redis://host:port, rediss://..., redis-sentinel://host:port,.../MASTER, "
          + "redis-cluster://host:port,...) or define a RedissonClient bean");
    }
    return new PixQuotaRedis(RedisAddress.parse(settings.redisUrl()).connect(
        settings.properties().getRedis().getTimeout()), true);
  }

  RedissonClient client() {
    return client;
  }

  @Override
  public void close() {
    if (owned) {
      client.shutdown();
    }
  }
}
