package io.pixquota.throttle.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A script's error reads the same on Redis 6.2, which wraps the code, and on Redis 7, which puts it first. */
class RedisErrorCodeTest {
  @Test
  void theCodeIsFoundFirstOrWrappedInsideAScriptError() {
    assertThat(RedisErrors.hasErrorCode("READONLY You can't write against a read only replica. script: f_1",
        "READONLY"))
        .isTrue();
    assertThat(RedisErrors.hasErrorCode("ERR Error running script (call to f_88f3): @user_script:596: "
        + "@user_script: 596: -READONLY You can't write against a read only replica.", "READONLY")).isTrue();
    assertThat(RedisErrors.hasErrorCode("ERR the key READONLY is not a code", "READONLY")).isFalse();
    assertThat(RedisErrors.hasErrorCode("CLUSTERDOWN The cluster is down", "CLUSTERDOWN")).isTrue();
  }
}
