package io.pixquota.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RedisExtension.class)
class PrivateRedisServerTest {

  @Test
  void killPauseAndRestartDoWhatTheySay() throws Exception {
    try (PrivateRedisServer server = PrivateRedisServer.start()) {
      try (RespConnection c = server.rawConnection()) {
        assertThat(c.call("SET", "k", "v")).isEqualTo("OK");
      }

      server.pause();
      try (RespConnection c = server.rawConnection().readTimeout(300)) { // the kernel still accepts; Redis answers nothing
        c.send("PING");
        assertThatThrownBy(c::read).isInstanceOf(UncheckedIOException.class)
            .hasCauseInstanceOf(SocketTimeoutException.class);
      } finally {
        server.resume();
      }

      server.kill();
      assertThat(server.isAlive()).isFalse();
      assertThatThrownBy(server::rawConnection).isInstanceOf(UncheckedIOException.class);

      server.restart();
      try (RespConnection c = server.rawConnection()) {
        assertThat(c.call("GET", "k")).as("no persistence: a restart starts empty").isNull();
      }
    }
  }

  @Test
  void eachTestHasItsOwnKeyPrefixOnTheSharedServer(TestRedis redis) {
    assertThat(redis.keyPrefix()).startsWith("test:eachTestHasItsOwnKeyPrefixOnTheSharedServer:");
    try (RespConnection c = redis.rawConnection()) {
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }
}
