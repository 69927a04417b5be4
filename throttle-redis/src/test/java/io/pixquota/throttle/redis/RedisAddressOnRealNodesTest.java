package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * One-node addresses against real servers: the database index and an awkward password are honoured; a missing
 * database, a wrong password and a replica are errors that say so.
 */
class RedisAddressOnRealNodesTest {
  @Test
  void theDatabaseIndexOfTheAddressIsWhereTheBucketLives() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start(); RespConnection admin = redis.rawConnection()) {
      RedissonClient redisson = RedisAddress.parse(redis.uri() + "/3").connect(Duration.ofSeconds(1));
      try {
        TokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.of("pix", 8, 9));
        assertThat(bucket.acquire(1, Duration.ZERO).granted()).isTrue();
        assertThat(admin.call("EXISTS", "pixquota:{pix}:tb")).as("in database 0").isEqualTo(0L);
        admin.call("SELECT", "3");
        assertThat(admin.call("EXISTS", "pixquota:{pix}:tb")).as("in database 3").isEqualTo(1L);
      } finally {
        redisson.shutdown();
      }
    }
  }

  @Test
  void aPasswordWithAnAtAndASpaceAuthenticatesAndAWrongOneSaysSoWithoutShowingIt() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start("--requirepass", "p@ss w0rd")) {
      String hostPort = redis.uri().getAuthority();
      RedissonClient right = RedisAddress.parse("redis://:p@ss w0rd@" + hostPort).connect(Duration.ofSeconds(1));
      RedissonClient wrong = RedisAddress.parse("redis://:p@ss w1rd@" + hostPort).connect(Duration.ofSeconds(1));
      try {
        assertThat(RedisTokenBucket.create(RedissonStore.of(right), TokenBucketConfig.of("pix", 8, 9)).acquire(1,
            Duration.ZERO)
            .granted()).isTrue();
        TokenBucket denied = RedisTokenBucket.create(RedissonStore.of(wrong), TokenBucketConfig.of("pix", 8, 9));
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
        RedissonClient redisson = RedisAddress.parse(url).connect(Duration.ofSeconds(1));
        try {
          assertThat(RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.of("pix", 8, 9)).acquire(1,
              Duration.ZERO)
              .granted()).as(RedisAddress.redacted(url)).isTrue();
        } finally {
          redisson.shutdown();
        }
      }
    }
  }

  @Test
  void aDatabaseTheServerDoesNotHaveIsAnErrorThatSaysSo() {
    try (PrivateRedisServer redis = PrivateRedisServer.start("--databases", "4")) {
      RedissonClient redisson = RedisAddress.parse(redis.uri() + "/7").connect(Duration.ofSeconds(1));
      try {
        TokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.of("pix", 8, 9));
        assertThatThrownBy(() -> bucket.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("Redis refused the connection: ERR DB index is out of range")
            .hasMessageNotContaining("channel");
      } finally {
        redisson.shutdown();
      }
    }
  }

  @Test
  void aReplicaIsAnErrorThatNamesTheSentinelAddress() throws Exception {
    try (PrivateRedisServer master = PrivateRedisServer.start();
        PrivateRedisServer replica = PrivateRedisServer.start("--replicaof", "127.0.0.1",
            Integer.toString(master.port()))) {
      RedissonClient redisson = RedisAddress.parse(replica.uri().toString()).connect(Duration.ofSeconds(1));
      try {
        TokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.of("pix", 8, 9));
        assertThatThrownBy(() -> bucket.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining("read-only replica (READONLY)").hasMessageContaining("redis-sentinel://");
      } finally {
        redisson.shutdown();
      }
    }
  }
}
