package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.redis.LettuceStore;
import io.pixquota.throttle.redis.RedisAddress;
import io.pixquota.throttle.redis.RedisStore;
import io.pixquota.throttle.redis.RedissonStore;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The Redis the shared buckets live in, chosen in this order: the application's own {@code RedissonClient} bean;
 * else a client made from {@code pixquota.redis.url} (Redisson's when Redisson is on the class path, else Lettuce's;
 * shut down with the context); else the native client of the application's Spring Data Redis
 * {@code LettuceConnectionFactory} ({@code spring.data.redis.*}). The application's clients are left alone at
 * shutdown. A Jedis connection factory fails the start, saying what to do instead. Redisson, Lettuce and Spring Data
 * Redis are each optional: only the classes of the one chosen are loaded.
 */
final class PixQuotaRedis implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PixQuotaRedis.class);
  private static final String REDISSON = "org.redisson.api.RedissonClient";
  private static final String LETTUCE = "io.lettuce.core.AbstractRedisClient";
  private static final String DATA_REDIS = "org.springframework.data.redis.connection.RedisConnectionFactory";

  private final RedisStore store;
  private final Object client;
  private final Runnable shutdown; // null: the application's client

  private PixQuotaRedis(RedisStore store, Object client, Runnable shutdown) {
    this.store = store;
    this.client = client;
    this.shutdown = shutdown;
  }

  static PixQuotaRedis of(ListableBeanFactory beans, ClassLoader classes, PixQuotaSettings settings) {
    if (ClassUtils.isPresent(REDISSON, classes)) {
      PixQuotaRedis app = RedissonBean.of(beans);
      if (app != null) {
        if (settings.redisUrl() != null) {
          LOG.warn("pixquota.redis.url ({}) is not used: the application's RedissonClient bean is",
              RedisAddress.redacted(settings.redisUrl()));
        }
        return app;
      }
    }
    if (settings.redisUrl() != null) {
      RedisAddress address = RedisAddress.parse(settings.redisUrl());
      if (ClassUtils.isPresent(REDISSON, classes)) {
        return RedissonBean.owned(address, settings);
      }
      if (ClassUtils.isPresent(LETTUCE, classes)) {
        return LettuceClient.owned(address, settings);
      }
      throw new InvalidConfigurationPropertyValueException("pixquota.redis.url", RedisAddress.redacted(
          settings.redisUrl()), "needs a Redis client on the class path: org.redisson:redisson or "
          + "io.lettuce:lettuce-core (spring-boot-starter-data-redis brings Lettuce)");
    }
    if (ClassUtils.isPresent(DATA_REDIS, classes) && ClassUtils.isPresent(LETTUCE, classes)) {
      PixQuotaRedis data = DataRedis.of(beans);
      if (data != null) {
        return data;
      }
    } else if (ClassUtils.isPresent(DATA_REDIS, classes)) {
      DataRedis.refuseJedis(beans);
    }
    throw new InvalidConfigurationPropertyValueException("pixquota.redis.url", null, "the shared bucket needs a "
        + "Redis: set pixquota.redis.url (redis://host:port, rediss://..., redis-sentinel://host:port,.../MASTER, "
        + "redis-cluster://host:port,...), define a RedissonClient bean, or configure Spring Data Redis on Lettuce "
        + "(spring.data.redis.*)");
  }

  /** The store the buckets, groups and pools run on. */
  RedisStore store() {
    return store;
  }

  /** The client under the store: a {@code RedissonClient} or a Lettuce {@code AbstractRedisClient}. */
  @SuppressWarnings("unchecked")
  <T> T client() {
    return (T) client;
  }

  @Override
  public void close() {
    if (shutdown != null) {
      shutdown.run();
    }
  }

  /** Redisson's side, loaded only when Redisson is on the class path. */
  private static final class RedissonBean {
    static PixQuotaRedis of(ListableBeanFactory beans) {
      RedissonClient app = beans.getBeanProvider(RedissonClient.class).getIfUnique();
      return app == null ? null : new PixQuotaRedis(RedissonStore.of(app), app, null);
    }

    static PixQuotaRedis owned(RedisAddress address, PixQuotaSettings settings) {
      RedissonClient client = address.connect(settings.properties().getRedis().getTimeout());
      return new PixQuotaRedis(RedissonStore.of(client), client, client::shutdown);
    }
  }

  /** Lettuce's side, loaded only when Lettuce is on the class path. */
  private static final class LettuceClient {
    static PixQuotaRedis owned(RedisAddress address, PixQuotaSettings settings) {
      io.lettuce.core.AbstractRedisClient client = address.connectLettuce(
          settings.properties().getRedis().getTimeout());
      return new PixQuotaRedis(LettuceStore.of(client), client, client::shutdown);
    }
  }

  /** Spring Data Redis's side, loaded only when it is on the class path. */
  private static final class DataRedis {
    static PixQuotaRedis of(ListableBeanFactory beans) {
      RedisConnectionFactory factory = beans.getBeanProvider(RedisConnectionFactory.class).getIfUnique();
      if (factory == null) {
        return null;
      }
      if (!(factory instanceof LettuceConnectionFactory lettuce)) {
        throw refused(factory);
      }
      if (lettuce.getNativeClient() == null) {
        lettuce.start(); // not started yet (a factory without early start-up): its native client is made on start
      }
      return new PixQuotaRedis(LettuceStore.of(lettuce.getNativeClient()), lettuce.getNativeClient(), null);
    }

    static void refuseJedis(ListableBeanFactory beans) {
      RedisConnectionFactory factory = beans.getBeanProvider(RedisConnectionFactory.class).getIfUnique();
      if (factory != null) {
        throw refused(factory);
      }
    }

    private static InvalidConfigurationPropertyValueException refused(RedisConnectionFactory factory) {
      return new InvalidConfigurationPropertyValueException("spring.data.redis.client-type",
          factory.getClass().getSimpleName(), "pixquota runs its scripts through Lettuce or Redisson, not through "
          + "this connection factory (Jedis?): use Lettuce (spring-boot-starter-data-redis's default: remove "
          + "spring.data.redis.client-type=jedis or the Jedis dependency), set pixquota.redis.url, or define a "
          + "RedissonClient bean");
    }
  }
}
