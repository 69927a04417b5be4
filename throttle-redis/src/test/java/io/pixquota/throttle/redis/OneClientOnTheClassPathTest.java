package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.io.File;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * A service with one client on its class path: a bucket on Lettuce in a class loader that has no Redisson jar, and
 * one on Redisson in a class loader without Lettuce's, each granting its burst from a real Redis. Neither store
 * loads the other client's classes.
 */
@ExtendWith(RedisExtension.class)
class OneClientOnTheClassPathTest {
  @Test
  void aBucketOnLettuceRunsWithoutRedisson(TestRedis redis) throws Exception {
    try (URLClassLoader without = classPathWithout("/org/redisson/")) {
      assertThatThrownBy(() -> Class.forName("org.redisson.api.RedissonClient", false, without))
          .isInstanceOf(ClassNotFoundException.class);
      Object granted = call(without, OnLettuce.class, redis);
      assertThat(granted).isEqualTo(5);
    }
  }

  @Test
  void aBucketOnRedissonRunsWithoutLettuce(TestRedis redis) throws Exception {
    try (URLClassLoader without = classPathWithout("/io/lettuce/")) {
      assertThatThrownBy(() -> Class.forName("io.lettuce.core.RedisClient", false, without))
          .isInstanceOf(ClassNotFoundException.class);
      Object granted = call(without, OnRedisson.class, redis);
      assertThat(granted).isEqualTo(5);
    }
  }

  static int burst(RedisStore store, String name) throws Exception {
    RedisTokenBucket bucket = RedisTokenBucket.create(store, TokenBucketConfig.custom(name.replace(":", "-"))
        .limit(5, 0.001).build());
    bucket.preload(); // a class loader of its own loads the client's classes anew: up to 10 s for the first call
    int granted = 0;
    for (int i = 0; i < 6; i++) {
      granted += bucket.acquire(1, Duration.ZERO).granted() ? 1 : 0;
    }
    return granted;
  }

  /** {@code side}'s burst, its class loaded anew by {@code loader}. */
  private static Object call(ClassLoader loader, Class<?> side, TestRedis redis) throws Exception {
    Method burst = loader.loadClass(side.getName()).getDeclaredMethod("burst", String.class, String.class);
    burst.setAccessible(true);
    Thread self = Thread.currentThread();
    ClassLoader before = self.getContextClassLoader();
    self.setContextClassLoader(loader); // as in a service of its own: Lettuce finds its JFR events through it
    try {
      return burst.invoke(null, redis.uri().toString(), redis.keyPrefix());
    } finally {
      self.setContextClassLoader(before);
    }
  }

  /** Run inside the class loader without Redisson: how many of 6 acquires a bucket of 5 grants. */
  static final class OnLettuce {
    static int burst(String url, String keyPrefix) throws Exception {
      RedisClient client = RedisClient.create(url);
      try {
        return OneClientOnTheClassPathTest.burst(LettuceStore.of(client), keyPrefix + "no-redisson");
      } finally {
        client.shutdown();
      }
    }
  }

  /** Run inside the class loader without Lettuce: how many of 6 acquires a bucket of 5 grants. */
  static final class OnRedisson {
    static int burst(String url, String keyPrefix) throws Exception {
      RedissonClient client = RedisAddress.parse(url).connect(Duration.ofSeconds(2));
      try {
        return OneClientOnTheClassPathTest.burst(RedissonStore.of(client), keyPrefix + "no-lettuce");
      } finally {
        client.shutdown();
      }
    }
  }

  /** The tests' class path without the jars whose path contains {@code part}, over the platform's classes only. */
  private static URLClassLoader classPathWithout(String part) throws Exception {
    String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<URL> urls = new ArrayList<>();
    for (String entry : path.split(File.pathSeparator)) {
      if (!entry.isEmpty() && !entry.replace(File.separatorChar, '/').contains(part)) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
  }
}
