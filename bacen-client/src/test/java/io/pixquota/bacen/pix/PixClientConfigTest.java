package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.RedisUnavailablePolicy;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PixClientConfigTest {
  @Test
  void readsEveryDocumentedVariable() {
    PixClientConfig c = PixClientConfig.fromEnvironment(TestEnv.with("BACEN_TOKEN_URL", "https://auth.example.com/token",
        "REDIS_URL", "redis://r:6379", "BACEN_BUCKET_NAME", "pix-bank", "BACEN_BUCKET_CAPACITY", "9",
        "BACEN_BUCKET_RATE", "9.8", "BACEN_MAX_WAIT_MS", "2500", "BACEN_CALL_TIMEOUT_MS", "4000",
        "BACEN_REDIS_TIMEOUT_MS", "300", "BACEN_RETRY_MAX_ATTEMPTS", "4", "BACEN_RETRY_INITIAL_BACKOFF_MS", "100",
        "BACEN_RETRY_MAX_BACKOFF_MS", "2000", "BACEN_RETRY_MAX_TOTAL_MS", "9000",
        "BACEN_REDIS_UNAVAILABLE", "local_fallback", "BACEN_LOCAL_SHARE", "0.25",
        "BACEN_CONFIGURATION_LEASE_MS", "45000", "BACEN_RATE_ADAPTATION", "off"));
    assertThat(c.provider().tokenUrl().toString()).isEqualTo("https://auth.example.com/token");
    assertThat(c.bucket().redisUrl()).isEqualTo("redis://r:6379");
    assertThat(c.bucket().name()).isEqualTo("pix-bank");
    assertThat(c.bucket().capacity()).isEqualTo(9);
    assertThat(c.bucket().ratePerSecond()).isEqualTo(9.8);
    assertThat(c.throttling().maxWait()).isEqualTo(Duration.ofMillis(2500));
    assertThat(c.provider().callTimeout()).isEqualTo(Duration.ofMillis(4000));
    assertThat(c.bucket().redisTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(c.retry().maxAttempts()).isEqualTo(4);
    assertThat(c.retry().initialBackoff()).isEqualTo(Duration.ofMillis(100));
    assertThat(c.retry().maxBackoff()).isEqualTo(Duration.ofMillis(2000));
    assertThat(c.retry().maxTotal()).isEqualTo(Duration.ofMillis(9000));
    assertThat(c.bucket().whenUnavailable()).isEqualTo(RedisUnavailablePolicy.LOCAL_FALLBACK);
    assertThat(c.bucket().localShare()).isEqualTo(0.25);
    assertThat(c.bucket().configurationLease()).isEqualTo(Duration.ofSeconds(45));
    assertThat(c.bucket().rateAdaptation()).isEmpty();
    assertThat(c.bucket().bucketConfig(9, 9.8).rateAdaptation()).isEmpty();
    assertThat(c.bucket().bucketConfig(9, 9.8).configurationLease()).isEqualTo(Duration.ofSeconds(45));
  }

  @Test
  void defaultsWhenOnlyTheRequiredOnesAreSet() {
    PixClientConfig c = PixClientConfig.fromEnvironment(TestEnv.with());
    assertThat(c.provider().tokenUrl().toString()).isEqualTo("https://pix.example.com/oauth/token");
    assertThat(c.throttling().quotaSignal()).as("the provider's own 429s only: a gateway's cut nothing")
        .contains("RateLimit");
    assertThat(PixClientConfig.fromEnvironment(TestEnv.with("BACEN_QUOTA_SIGNAL", "none")).throttling()
        .quotaSignal()).as("a provider that sends none: every 429 counts").isEmpty();
    assertThat(c.throttling().providerTimeout()).as("30 s, or the call timeout when longer")
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(c.bucket().capacity()).isEqualTo(8);
    assertThat(c.bucket().ratePerSecond()).isEqualTo(9);
    assertThat(c.bucket().whenUnavailable()).isEqualTo(RedisUnavailablePolicy.FAIL_CLOSED);
    assertThat(c.bucket().configurationLease()).isEqualTo(TokenBucketConfig.DEFAULT_CONFIGURATION_LEASE);
    assertThat(c.bucket().rateAdaptation()).contains(RateAdaptation.defaults());
    assertThat(PixClientConfig.fromEnvironment(TestEnv.with("BACEN_RATE_ADAPTATION", " ON ")).bucket().rateAdaptation())
        .contains(RateAdaptation.defaults());
  }

  @Test
  void badValuesNameTheVariableAndTheValue() {
    Map<String, String> missing = TestEnv.with();
    missing.remove("BACEN_CLIENT_SECRET");
    assertThatThrownBy(() -> PixClientConfig.fromEnvironment(missing))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("BACEN_CLIENT_SECRET must be set, but was missing");
    assertThatThrownBy(() -> PixClientConfig.fromEnvironment(TestEnv.with("BACEN_BUCKET_CAPACITY", "abc")))
        .hasMessage("BACEN_BUCKET_CAPACITY must be a number, but was 'abc'");
    assertThatThrownBy(() -> PixClientConfig.fromEnvironment(TestEnv.with("BACEN_BUCKET_CAPACITY", "0")))
        .hasMessage("BACEN_BUCKET_CAPACITY is invalid, was '0': capacity must be positive and finite, but was 0.0");
    assertThatThrownBy(() -> PixClientConfig.fromEnvironment(TestEnv.with("BACEN_MAX_WAIT_MS", "1.5s")))
        .hasMessage("BACEN_MAX_WAIT_MS must be a whole number of milliseconds, but was '1.5s'");
    assertThatThrownBy(() -> PixClientConfig.fromEnvironment(TestEnv.with("BACEN_REDIS_UNAVAILABLE", "open")))
        .hasMessage("BACEN_REDIS_UNAVAILABLE must be FAIL_CLOSED or LOCAL_FALLBACK, but was 'open'");
    assertThatThrownBy(() -> PixClientConfig.fromEnvironment(TestEnv.with("REDIS_URL", "http://user:pw@r")))
        .hasMessageStartingWith("REDIS_URL is invalid").hasMessageNotContaining("pw@");
    assertThatThrownBy(() -> PixClientConfig.fromEnvironment(TestEnv.with("BACEN_BASE_URL", "ftp://x")))
        .hasMessage("BACEN_BASE_URL is invalid, was 'ftp://x': baseUrl must be http or https, but was 'ftp://x'");
  }

  @Test
  void theBaseUrlIsUsedAsGivenWithNothingAppendedAndTheTokenDefaultsToTheHostsOauthToken() {
    PixClientConfig c = PixClientConfig.fromEnvironment(TestEnv.with("BACEN_BASE_URL", "https://gw.example.com/v2"));
    assertThat(c.provider().baseUrl().toString()).as("a directory: pix/x resolves below v2")
        .isEqualTo("https://gw.example.com/v2/");
    assertThat(c.provider().baseUrl().resolve("pix/x").toString()).isEqualTo("https://gw.example.com/v2/pix/x");
    assertThat(c.provider().tokenUrl().toString()).isEqualTo("https://gw.example.com/oauth/token");
    assertThat(PixClientConfig.builder().baseUrl(URI.create("https://h")).credentials("i", "s").build().provider()
        .baseUrl().resolve("pix/x").toString()).isEqualTo("https://h/pix/x");
    assertThat(PixClientConfig.fromEnvironment(TestEnv.with("BACEN_BASE_URL", "https://pix.example.com/api/v2/",
        "BACEN_TOKEN_URL", "https://oauth.example.com/token")).provider().tokenUrl().toString())
        .isEqualTo("https://oauth.example.com/token");
  }

  @Test
  void aRedisPasswordWithAnAtAndASpaceIsAcceptedAndNeverShown() {
    PixClientConfig c = PixClientConfig.fromEnvironment(TestEnv.with("REDIS_URL", "redis://:p@ss w0rd@127.0.0.1"));
    assertThat(c.toString()).contains("redis=redis://****@127.0.0.1:6379").doesNotContain("p@ss")
        .doesNotContain("w0rd");
  }

  @Test
  void sentinelAndClusterAddressesAreRead() {
    assertThat(PixClientConfig.fromEnvironment(TestEnv.with("REDIS_URL",
        "redis-sentinel://app:pw@s1:26379,s2:26380/mymaster/2")).toString())
        .contains("redis=redis-sentinel://****@s1:26379,s2:26380/mymaster/2").doesNotContain("pw");
    assertThat(PixClientConfig.fromEnvironment(TestEnv.with("REDIS_URL", "rediss-cluster://c1:7000,c2")).toString())
        .contains("redis=rediss-cluster://c1:7000,c2:6379");
  }

  @Test
  void theRedisUrlsDatabaseIsReadAndItsPasswordNeverShown() {
    PixClientConfig c = PixClientConfig.fromEnvironment(TestEnv.with("REDIS_URL", "redis://app:pa55@r:6380/3"));
    assertThat(c.toString()).contains("redis=redis://****@r:6380/3").doesNotContain("pa55");
  }
}
