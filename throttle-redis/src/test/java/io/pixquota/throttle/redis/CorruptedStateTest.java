package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.RespConnection;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.StdErrCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The adversarial test's fifth finding, through the SDK on Redis's own clock: one field of the bucket's hash set to
 * garbage made every call fail (a raw IllegalArgumentException, blocking and async) for as long as traffic went on,
 * an infinite lease refused every call, and an updatedAt 60 s ahead gave no refill for 60 s. Now the next call resets
 * what it cannot trust, serves, counts the repair and logs it once; every later call is served as before.
 */
@ExtendWith(RedisExtension.class)
class CorruptedStateTest {
  private static long redisMicros(RespConnection admin) {
    List<?> time = (List<?>) admin.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
  }

  static Stream<Arguments> corruptions() {
    return Stream.of(
        Arguments.of("e", "nan", "e"), Arguments.of("e", "garbage", "e"),
        Arguments.of("f", "nan", "f"), Arguments.of("f", "garbage", "f"), Arguments.of("k", "inf", "f"),
        Arguments.of("g", "9223372036854775806", "g"), Arguments.of("h", "nan", "h"),
        Arguments.of("t:8.0:9.0", "nan", "t"), Arguments.of("c:1.0:0.01", "inf", "c"),
        Arguments.of("c:0:0", "99999999999999999", "c"), Arguments.of("u", "garbage", "u"),
        Arguments.of("t:8.0:9.0", "-1e300", "t"), Arguments.of("u", "-1e300", "u"),
        Arguments.of("r:other", "8.0:9.0", "r"), Arguments.of("r:other", "1.0:0.01/-5", "r"));
  }

  @ParameterizedTest(name = "{0} = {1}")
  @MethodSource("corruptions")
  void aFieldThatCannotBeTrustedIsResetAtTheNextCallWhichIsServed(String field, String value, String repaired,
      TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("corrupt-" + repaired + value.length())
        .keyPrefix(redis.keyPrefix()).limit(8, 9).build();
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config);
    try (RespConnection admin = redis.rawConnection(); StdErrCapture logs = new StdErrCapture()) {
      bucket.acquire(1, Duration.ZERO);
      admin.call("HSET", config.key(), field, value);
      if (field.equals("k")) {
        admin.call("HSET", config.key(), "f", "0.85"); // a cut whose time cannot be read
      }
      Acquisition blocking = bucket.acquire(1, Duration.ofSeconds(1));
      assertThat(blocking.granted()).isTrue();
      assertThat(bucket.readings().stateRepairs()).isEqualTo(1);
      assertThat(bucket.acquireAsync(1, Duration.ofSeconds(1)).toCompletableFuture().get(5, TimeUnit.SECONDS)
          .granted()).as("and the async path").isTrue();
      for (int i = 0; i < 5; i++) {
        assertThat(bucket.acquire(1, Duration.ofSeconds(2)).granted()).isTrue();
      }
      assertThat(bucket.readings().stateRepairs()).as("repaired once: the state healed").isEqualTo(1);
      assertThat(logs.count("were reset")).as("logged once").isEqualTo(1);
      assertThat(logs.text()).contains("(" + repaired + ":");
      Object now = admin.call("HGET", config.key(), field);
      assertThat(now).as("the field now").isNotEqualTo(value);
      assertThat((Long) admin.call("PTTL", config.key())).as("an expiry of the bucket's own, not centuries")
          .isBetween(1L, 400_000L);
    }
  }

  /**
   * The adversarial test's eighth finding: a bucket key replaced by a string or a list failed every call for ever
   * (WRONGTYPE, and no expiry on it). The next call deletes it, starts a new state and counts the repair.
   */
  @ParameterizedTest(name = "the key as a {0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"string", "list"})
  void aKeyOfTheWrongTypeIsReplacedAtTheNextCallWhichIsServed(String type, TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("wrong-" + type).keyPrefix(redis.keyPrefix()).limit(8, 9)
        .build();
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config);
    try (RespConnection admin = redis.rawConnection(); StdErrCapture logs = new StdErrCapture()) {
      bucket.acquire(1, Duration.ZERO);
      admin.call("DEL", config.key());
      if (type.equals("string")) {
        admin.call("SET", config.key(), "not a bucket");
      } else {
        admin.call("RPUSH", config.key(), "not", "a", "bucket");
      }
      assertThat(bucket.acquire(1, Duration.ofSeconds(1)).granted()).isTrue();
      assertThat(bucket.readings().stateRepairs()).isEqualTo(1);
      assertThat(logs.text()).contains("(type:");
      assertThat(admin.call("TYPE", config.key())).isEqualTo("hash");
      assertThat(bucket.acquireAsync(1, Duration.ofSeconds(1)).toCompletableFuture().get(5, TimeUnit.SECONDS)
          .granted()).isTrue();
      assertThat(bucket.readings().stateRepairs()).as("healed once").isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "updatedAt {0} s ahead")
  @MethodSource("aheads")
  void anUpdatedAtAheadOfRedissClockGivesNoStall(long aheadSeconds, TestRedis redis) throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("ahead-" + aheadSeconds).keyPrefix(redis.keyPrefix())
        .limit(8, 9).build();
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), config);
    try (RespConnection admin = redis.rawConnection()) {
      bucket.acquire(8, Duration.ZERO); // drained
      admin.call("HSET", config.key(), "u", Long.toString(redisMicros(admin) + aheadSeconds * 1_000_000));
      Acquisition a = bucket.acquire(1, Duration.ofSeconds(2));
      assertThat(a.granted()).isTrue();
      assertThat(a.waitTime()).as("one token's wait at most, not %d s", aheadSeconds)
          .isLessThanOrEqualTo(Duration.ofMillis(112));
      assertThat(bucket.readings().stateRepairs()).isEqualTo(1);
    }
  }

  static Stream<Long> aheads() {
    return Stream.of(60L, 86_400L);
  }
}
