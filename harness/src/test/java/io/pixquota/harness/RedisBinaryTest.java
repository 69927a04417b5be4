package io.pixquota.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The redis-server the private servers run: the one asked for, or the PATH's, or the embedded Redis 6.2. */
class RedisBinaryTest {
  @Test
  void theEmbeddedBinaryIsTheRedis62ThatEmbeddedRedisShips() {
    assertThat(RedisBinary.locate("embedded")).contains("redis-server-6.2");
  }

  @Test
  void theChosenBinaryIsTheOneThisJvmWasAskedFor() {
    String asked = System.getProperty(RedisBinary.VARIABLE, System.getenv(RedisBinary.VARIABLE));
    RedisBinary chosen = RedisBinary.get();
    assertThat(chosen.version()).matches("\\d+\\.\\d+\\.\\d+");
    if ("embedded".equals(asked)) {
      assertThat(chosen.version()).as(".ci/run's second pass runs on Redis 6.2").startsWith("6.2.");
    } else if ("path".equals(asked)) {
      assertThat(chosen.major()).as(".ci/run's first pass runs on the PATH's Redis 7").isEqualTo(7);
    }
    try (PrivateRedisServer redis = PrivateRedisServer.start(); RespConnection c = redis.rawConnection()) {
      assertThat(String.valueOf(c.call("INFO", "server"))).contains("redis_version:" + chosen.version());
    }
  }

  @Test
  void aChoiceThatIsNeitherAWordNorAnExecutableSaysSo() {
    assertThatThrownBy(() -> RedisBinary.locate("/no/such/redis-server"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("PIXQUOTA_REDIS_SERVER must be 'embedded', 'path' or an executable redis-server, but was "
            + "'/no/such/redis-server'");
  }
}
