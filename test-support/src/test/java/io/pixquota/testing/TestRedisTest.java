package io.pixquota.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.RespConnection;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RedisExtension.class)
class TestRedisTest {

  @Test
  void eachTestHasItsOwnKeyPrefixOnTheSharedServer(TestRedis redis) {
    assertThat(redis.keyPrefix()).startsWith("test:eachTestHasItsOwnKeyPrefixOnTheSharedServer:");
    try (RespConnection c = redis.rawConnection()) {
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void aFakeClockRedisAnswersTimeFromTheTestsClock() {
    try (FakeClockRedis redis = FakeClockRedis.start(1_000_000_000L);
        RespConnection c = redis.server().rawConnection()) {
      assertThat(c.call("TIME")).isEqualTo(List.of("1000", "0"));
      redis.setMicros(990_500_001L);
      assertThat(c.call("TIME")).as("backwards too").isEqualTo(List.of("990", "500001"));
      assertThat(c.call("SET", "k", "v", "PX", "1000")).isEqualTo("OK");
      redis.setMicros(991_501_000L);
      assertThat(c.call("EXISTS", "k")).as("expiry follows the fake clock").isEqualTo(0L);
    }
  }
}
