package io.pixquota.throttle;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The provider's quota headers on every answer: a lower remaining count lowers the shared bucket (once a second at
 * most), a higher one never raises it, a malformed one is counted and ignored. A clock the test owns.
 */
class QuotaHeadersTest {
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final LocalTokenBucket bucket = new LocalTokenBucket("pix", List.of(Limit.of(10, 1)), time::nanoTime);

  /** An answer 200 with these headers. */
  private static Exchange<Integer> answering(Map<String, String> headers) {
    return Answering.status(200, headers);
  }

  private Throttle throttle(QuotaHeaders family) {
    return Throttle.builder(bucket).timeSource(time).meterRegistry(registry).quotaHeaders(family).build();
  }

  private double outcome(String outcome) {
    var c = registry.find("bacen.throttle.quota.headers").tag("outcome", outcome).counter();
    return c == null ? 0 : c.count();
  }

  private double tokens() throws Exception {
    return bucket.charge(1e-9); // what it holds, read by a charge too small to matter
  }

  @Test
  void fewerRemainingAtTheProviderLowersTheBucketOnceASecondAndMoreNeverRaisesIt() throws Exception {
    Throttle throttle = throttle(QuotaHeaders.IETF);
    throttle.exchange("GET", "/pix/1", null, answering(Map.of("RateLimit", "\"pix\";r=2;t=8")));
    // The bucket expected 9 left after this call; the provider said 2: lowered by 9 - 2 - 1 (a token of rounding).
    assertThat(outcome("lowered")).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.quota.lowered").counter().count()).isEqualTo(6);
    throttle.exchange("GET", "/pix/2", null, answering(Map.of("RateLimit", "\"pix\";r=0;t=8")));
    assertThat(outcome("skipped")).as("lowered a moment ago: the next second's answers tell again").isEqualTo(1);
    throttle.exchange("GET", "/pix/3", null, answering(Map.of("RateLimit", "\"pix\";r=9;t=1")));
    assertThat(outcome("agreed")).as("more at the provider: never raised").isEqualTo(1);
    assertThat(tokens()).isCloseTo(1, within(0.01)); // 10 - 3 calls - 6 lowered
    time.advance(Duration.ofSeconds(2)); // 2 tokens refilled: 3
    throttle.exchange("GET", "/pix/4", null, answering(Map.of("RateLimit", "\"burst\";r=5;t=1, \"pix\";r=0;t=9")));
    assertThat(outcome("lowered")).as("the fewest of two policies: 0, against the 2 expected").isEqualTo(2);
    assertThat(tokens()).isCloseTo(1, within(0.01));
  }

  @Test
  void theGitHubFamilyAndTheEarlierIetfHeaderAreReadToo() throws Exception {
    throttle(QuotaHeaders.X_RATELIMIT).exchange("GET", "/a", null,
        answering(Map.of("X-RateLimit-Remaining", "0", "RateLimit", "\"pix\";r=9")));
    assertThat(outcome("lowered")).isEqualTo(1);
    assertThat(tokens()).isCloseTo(1, within(0.01)); // 9 expected, 0 said: lowered by 8
    time.advance(Duration.ofSeconds(2));
    throttle(QuotaHeaders.IETF).exchange("GET", "/a", null, answering(Map.of("RateLimit-Remaining", "0")));
    assertThat(outcome("lowered")).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', value = {
      "RateLimit|\"pix\";r=abc;t=1", "RateLimit|\"pix\";r=-1;t=1", "RateLimit|\"pix\";r=1e3;t=1",
      "RateLimit|\"pix\";r=99999999999;t=1", "RateLimit|pix;r=1", "RateLimit|\"pix\";t=1", "RateLimit|\"pix\";r=",
      "RateLimit|\"pix\";r=1, garbage", "RateLimit-Remaining|-3", "RateLimit-Remaining|3.5",
      "RateLimit-Remaining|1000000001", "X-RateLimit-Remaining|NaN", "X-RateLimit-Remaining|0x10",
      "X-RateLimit-Remaining|'   '"})
  void aMalformedHeaderIsCountedAndIgnoredNeverTrusted(String header, String value) throws Exception {
    QuotaHeaders family = header.startsWith("X-") ? QuotaHeaders.X_RATELIMIT : QuotaHeaders.IETF;
    throttle(family).exchange("GET", "/a", null, answering(Map.of(header, value.replace("'", ""))));
    assertThat(outcome("ignored")).isEqualTo(1);
    assertThat(outcome("lowered")).isZero();
    assertThat(tokens()).as("the bucket untouched but for the call").isCloseTo(9, within(0.01));
  }

  @Test
  void withoutAFamilyNothingIsRead() throws Exception {
    Throttle.builder(bucket).timeSource(time).meterRegistry(registry).build().exchange("GET", "/a", null,
        answering(Map.of("RateLimit", "\"pix\";r=0;t=1")));
    assertThat(registry.find("bacen.throttle.quota.headers").counters()).isEmpty();
    assertThat(tokens()).isCloseTo(9, within(0.01));
  }
}
