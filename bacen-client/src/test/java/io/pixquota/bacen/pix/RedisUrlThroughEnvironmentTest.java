package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.pixquota.throttle.redis.RedisAddressTest;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every malformed Redis URL of {@link RedisAddressTest}, given as {@code REDIS_URL}: named, and never shown. */
class RedisUrlThroughEnvironmentTest {
  @ParameterizedTest(name = "{0}")
  @MethodSource("io.pixquota.throttle.redis.RedisAddressTest#bad")
  void refusedNamingTheVariableAndNeverShowingTheUserInfo(String url, String message) {
    Throwable viaEnv = catchThrowable(() -> PixClientConfig.fromEnvironment(Map.of(
        "BACEN_BASE_URL", "https://pix.example.com", "BACEN_CLIENT_ID", "id", "BACEN_CLIENT_SECRET", "x",
        "REDIS_URL", url)));
    assertThat(viaEnv).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("REDIS_URL is invalid")
        .hasMessageContaining(message);
    for (String secret : RedisAddressTest.SECRETS) {
      assertThat(viaEnv.getMessage()).as("through REDIS_URL").doesNotContain(secret);
    }
  }
}
