package io.pixquota.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class PrivateRedisServerTest {

  @Test
  void killPauseAndRestartDoWhatTheySay() throws Exception {
    try (PrivateRedisServer server = PrivateRedisServer.start()) {
      try (RespConnection c = server.rawConnection()) {
        assertThat(c.call("SET", "k", "v")).isEqualTo("OK");
      }

      server.pause();
      // the kernel still accepts; Redis answers nothing
      try (RespConnection c = server.rawConnection().readTimeout(300)) {
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
}
