package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import io.lettuce.core.AbstractRedisClient;

/**
 * {@link RedisAddressOnRealNodesTest} on the Lettuce clients {@link RedisAddress#connectLettuce} builds: the database
 * index and an awkward password are honoured; a missing database, a wrong password and a replica are errors that say
 * so, in the same words as on Redisson.
 */
class LettuceAddressOnRealNodesTest {
  /**
   * Lettuce's and Netty's classes loaded before the tests: a cold JVM's first Lettuce call takes over a second (1.3 s
   * measured here), past these buckets' 1 s timeout; a service pays it in {@code preload()}, which waits up to 10 s.
   */
  @BeforeAll
  static void warmUp() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start()) {
      AbstractRedisClient lettuce = RedisAddress.parse(redis.uri().toString()).connectLettuce(Duration.ofSeconds(1));
      try {
        RedisTokenBucket.create(LettuceStore.of(lettuce), TokenBucketConfig.of("warm-up", 8, 9)).preload();
      } finally {
        lettuce.shutdown();
      }
    }
  }

  @Test
  void theDatabaseIndexOfTheAddressIsWhereTheBucketLives() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start(); RespConnection admin = redis.rawConnection()) {
      AbstractRedisClient lettuce = RedisAddress.parse(redis.uri() + "/3").connectLettuce(Duration.ofSeconds(1));
      try {
        TokenBucket bucket = RedisTokenBucket.create(LettuceStore.of(lettuce), TokenBucketConfig.of("pix", 8, 9));
        assertThat(bucket.acquire(1, Duration.ZERO).granted()).isTrue();
        assertThat(admin.call("EXISTS", "pixquota:{pix}:tb")).as("in database 0").isEqualTo(0L);
        admin.call("SELECT", "3");
        assertThat(admin.call("EXISTS", "pixquota:{pix}:tb")).as("in database 3").isEqualTo(1L);
      } finally {
        lettuce.shutdown();
      }
    }
  }

  @Test
  void aPasswordWithAnAtAndASpaceAuthenticatesAndAWrongOneSaysSoWithoutShowingIt() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start("--requirepass", "p@ss w0rd")) {
      String hostPort = redis.uri().getAuthority();
      AbstractRedisClient right = RedisAddress.parse("redis://:p@ss w0rd@" + hostPort)
          .connectLettuce(Duration.ofSeconds(1));
      AbstractRedisClient wrong = RedisAddress.parse("redis://:p@ss w1rd@" + hostPort)
          .connectLettuce(Duration.ofSeconds(1));
      try {
        assertThat(RedisTokenBucket.create(LettuceStore.of(right), TokenBucketConfig.of("pix", 8, 9))
            .acquire(1, Duration.ZERO).granted()).isTrue();
        TokenBucket denied = RedisTokenBucket.create(LettuceStore.of(wrong), TokenBucketConfig.of("pix", 8, 9));
        assertThatThrownBy(() -> denied.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("Redis refused the connection: WRONGPASS").hasMessageNotContaining("w1rd");
      } finally {
        right.shutdown();
        wrong.shutdown();
      }
    }
  }

  @Test
  void aPasswordWithSlashPercentAndAtAuthenticatesWrittenRawOrPercentEncodedAsAnAclUserToo() throws Exception {
    String password = "Tr0ub4dor/&3%x@y";
    try (PrivateRedisServer redis = PrivateRedisServer.start("--requirepass", password);
        RespConnection admin = redis.rawConnection()) {
      admin.call("AUTH", password);
      admin.call("ACL", "SETUSER", "app", "on", ">" + password, "~*", "&*", "+@all");
      String hostPort = redis.uri().getAuthority();
      for (String url : new String[] {"redis://:Tr0ub4dor%2F%263%25x%40y@" + hostPort,
          "redis://:Tr0ub4dor/&3%25x@y@" + hostPort, "redis://app:Tr0ub4dor%2F&3%25x@y@" + hostPort}) {
        AbstractRedisClient lettuce = RedisAddress.parse(url).connectLettuce(Duration.ofSeconds(1));
        try {
          assertThat(RedisTokenBucket.create(LettuceStore.of(lettuce), TokenBucketConfig.of("pix", 8, 9))
              .acquire(1, Duration.ZERO).granted()).as(RedisAddress.redacted(url)).isTrue();
        } finally {
          lettuce.shutdown();
        }
      }
    }
  }

  @Test
  void aDatabaseTheServerDoesNotHaveIsAnErrorThatSaysSo() {
    try (PrivateRedisServer redis = PrivateRedisServer.start("--databases", "4")) {
      AbstractRedisClient lettuce = RedisAddress.parse(redis.uri() + "/7").connectLettuce(Duration.ofSeconds(1));
      try {
        TokenBucket bucket = RedisTokenBucket.create(LettuceStore.of(lettuce), TokenBucketConfig.of("pix", 8, 9));
        assertThatThrownBy(() -> bucket.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("Redis refused the connection: ERR DB index is out of range")
            .hasMessageNotContaining("channel");
      } finally {
        lettuce.shutdown();
      }
    }
  }

  @Test
  void aReplicaIsAnErrorThatNamesTheSentinelAddress() throws Exception {
    try (PrivateRedisServer master = PrivateRedisServer.start();
        PrivateRedisServer replica = PrivateRedisServer.start("--replicaof", "127.0.0.1",
            Integer.toString(master.port()))) {
      AbstractRedisClient lettuce = RedisAddress.parse(replica.uri().toString()).connectLettuce(Duration.ofSeconds(1));
      try {
        TokenBucket bucket = RedisTokenBucket.create(LettuceStore.of(lettuce), TokenBucketConfig.of("pix", 8, 9));
        assertThatThrownBy(() -> bucket.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("read-only replica (READONLY)").hasMessageContaining("redis-sentinel://");
      } finally {
        lettuce.shutdown();
      }
    }
  }
}
