package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixClientConfig;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.StdErrCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A full run, failures included (wrong secret, unknown Pix, Redis with AUTH killed mid-run under FAIL_CLOSED and
 * LOCAL_FALLBACK): its logs, exception messages, metric tags and Redis keys never carry the client secret, a bearer
 * token, the Redis password or an endToEndId.
 */
class SecretsNeverLeakTest {
  private static final String SECRET = "s3cr3t-Client-Secret";
  private static final String REDIS_PASSWORD = "r3dis-Pa55word";
  private static final String E2E = "E12345678202611301200SECRETPIX01";
  private static final String E2E_404 = "E12345678202611301200SECRETP0404";
  /** The mock's bearer tokens: 32 random bytes, base64url without padding. */
  private static final Pattern BEARER = Pattern.compile("[A-Za-z0-9_-]{43}");

  @Test
  void noSecretTokenPasswordOrIdInLogsMessagesTagsOrKeys() throws Exception {
    StdErrCapture logs = new StdErrCapture();
    List<String> messages = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    List<String> keys = new ArrayList<>();
    try (logs; MockBacen mock = MockBacen.start(MockConfig.builder().integrator("bank", SECRET).build());
        PrivateRedisServer redis = PrivateRedisServer.start("--requirepass", REDIS_PASSWORD)) {
      String redisUrl = "redis://:" + REDIS_PASSWORD + "@127.0.0.1:" + redis.port();
      for (RedisUnavailablePolicy policy : RedisUnavailablePolicy.values()) {
        PixClientConfig config = PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("bank", SECRET)
            .redisUrl(redisUrl).redisTimeout(Duration.ofMillis(3000)).redisUnavailable(policy, 0.5)
            .retry(2, Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofSeconds(2)).build();
        messages.add(config.toString());
        try (PixClient pix = PixClient.builder(config).meterRegistry(registry).build()) {
          messages.add(pix.toString());
          pix.getPix(E2E);
          collect(messages, () -> pix.getPix(E2E_404));
          try (RespConnection admin = redis.rawConnection()) {
            admin.call("AUTH", REDIS_PASSWORD);
            for (Object key : (List<?>) admin.call("KEYS", "*")) {
              keys.add(String.valueOf(key));
            }
          }
          redis.kill();
          for (int i = 0; i < 3; i++) {
            collect(messages, () -> pix.getPix(E2E));
          }
          redis.restart();
        }
      }
      PixClientConfig wrong = PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("bank", SECRET + "x")
          .redisUrl(redisUrl).build();
      try (PixClient pix = PixClient.builder(wrong).build()) {
        collect(messages, () -> pix.getPix(E2E));
      }
      collect(messages, () -> PixClientConfig.fromEnvironment(Map.of("BACEN_BASE_URL", "https://x",
          "BACEN_CLIENT_ID", "bank", "BACEN_CLIENT_SECRET", SECRET, "REDIS_URL", "tcp://:" + REDIS_PASSWORD + "@r")));
    }
    String logText = logs.text();
    assertThat(logText).as("the run did log (WARN on fallback)").contains("WARN");
    List<String> tags = new ArrayList<>();
    for (Meter meter : registry.getMeters()) {
      for (Tag tag : meter.getId().getTags()) {
        tags.add(tag.getKey() + "=" + tag.getValue());
      }
    }
    assertThat(messages).hasSizeGreaterThan(8);
    for (String text : List.of(logText, String.join("\n", messages), String.join("\n", tags),
        String.join("\n", keys))) {
      assertThat(text).doesNotContain(SECRET).doesNotContain(REDIS_PASSWORD).doesNotContain(E2E)
          .doesNotContain(E2E_404).doesNotContain("SECRETPIX").doesNotContain("SECRETP0404");
      assertThat(BEARER.matcher(text).find()).as("a bearer token in: %s", text).isFalse();
    }
    assertThat(keys).isNotEmpty().allMatch(k -> k.startsWith("pixquota:{pix}"));
  }

  private static void collect(List<String> messages, Runnable call) {
    try {
      call.run();
      messages.add("no exception");
    } catch (PixException | IllegalArgumentException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        messages.add(t.getClass().getName() + ": " + t.getMessage());
      }
    }
  }
}
