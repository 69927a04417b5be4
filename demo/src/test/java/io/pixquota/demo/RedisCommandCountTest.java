package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * The demo's count of Redis round trips is a figure, not a condition of the run: a node that dies (a Sentinel's
 * master killed under the demo, say) ends its counting, never the demo.
 */
class RedisCommandCountTest {

  @Test
  void aNodeThatCannotBeReachedAtTheStartIsLeftOutAndSaidSo() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    try (RedisCommandCount count = RedisCommandCount.start("redis://127.0.0.1:" + port,
        System.currentTimeMillis())) {
      assertThat(count.commands()).isZero();
      assertThat(count.partial()).isEqualTo("not counted: 127.0.0.1:" + port + " (unreachable)");
    }
  }

  @Test
  void aNodeKilledDuringTheRunEndsItsCountWhichSaysSo() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start()) {
      try (RedisCommandCount count = RedisCommandCount.start(redis.uri().toString(), 0)) {
        assertThat(count.partial()).isNull();
        try (RespConnection c = redis.rawConnection()) {
          c.call("SET", "k", "v");
          c.call("GET", "k");
        }
        count.settle();
        assertThat(count.commands()).isEqualTo(2);
        redis.kill();
        count.settle();
        assertThat(count.commands()).as("what it saw before the node died").isEqualTo(2);
        for (int i = 0; i < 200 && count.partial() == null; i++) {
          Thread.sleep(10); // the monitor's reader sees the connection end
        }
        assertThat(count.partial()).isEqualTo("not counted: 127.0.0.1:" + redis.port()
            + " (went away during the run)");
      }
    }
  }
}
