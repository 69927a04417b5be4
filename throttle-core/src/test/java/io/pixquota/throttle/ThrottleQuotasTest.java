package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalPermitPool;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Named quotas routed by request, on a clock the test moves: each request goes to the quota its host, method and path
 * match, and one that no quota matches is sent untouched: its store is never asked, no meter moves, no span starts.
 */
class ThrottleQuotasTest {
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final TestObservationRegistry observations = TestObservationRegistry.create();
  private final CountingBucket pix = new CountingBucket(new LocalTokenBucket("pix", List.of(Limit.of(2, 0.01)),
      time::nanoTime));
  private final CountingBucket dict = new CountingBucket(new LocalTokenBucket("dict", List.of(Limit.of(1, 0.01)),
      time::nanoTime));

  private Throttle throttle() {
    return ThrottleTesting.onTime(Throttle.builder(), time).maxWait(Duration.ZERO).meterRegistry(registry)
        .observationRegistry(observations)
        .quota("pix", Match.host("pix.example.com").path("/api/v2/pix/.*"), pix, 1)
        .quota("dict", Match.host("DICT.example.com").method("GET").path("/api/v2/entries/.*"), dict, 1).build();
  }

  private static ThrottleRequest to(String host, String method, String path) {
    return ThrottleRequest.of(method, path).withHost(host);
  }

  @Test
  void eachRequestTakesTheQuotaItsHostMethodAndPathMatch() throws Exception {
    Throttle throttle = throttle();
    for (int i = 0; i < 2; i++) {
      assertThat(throttle.exchange(to("pix.example.com", "GET", "/api/v2/pix/E1"), Answering.status(200)))
          .isEqualTo(200);
    }
    assertThatThrownBy(() -> throttle.exchange(to("PIX.example.com", "GET", "/api/v2/pix/E1"),
        Answering.status(200))).as("the pix quota's burst of 2 is spent; hosts match whatever their case")
        .isInstanceOf(ThrottleRefusedException.class).hasMessageContaining("Bucket 'pix'");
    assertThat(throttle.exchange(to("dict.example.com", "GET", "/api/v2/entries/k"), Answering.status(200)))
        .as("the dict quota's own bucket").isEqualTo(200);
    assertThat(pix.asked).hasValue(3);
    assertThat(dict.asked).hasValue(1);
    assertThat(registry.get("bacen.throttle.wait").tag("quota", "pix").timer().count()).as("the quota tag")
        .isEqualTo(2);
    assertThat(registry.get("bacen.throttle.permits").tag("quota", "pix").tag("result", "refused").counter()
        .count()).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.wait").tag("quota", "dict").timer().count()).isEqualTo(1);
  }

  @Test
  void aRequestNoQuotaMatchesIsSentUntouched() throws Exception {
    Throttle throttle = throttle();
    int meters = registry.getMeters().size();
    List<ThrottleRequest> others = List.of(to("auth.example.com", "POST", "/oauth/token"),
        to("pix.example.com", "POST", "/oauth/token"), to("dict.example.com", "PUT", "/api/v2/entries/k"),
        to(null, "GET", "/api/v2/pix/E1"), ThrottleRequest.of("GET", "/api/v2/pix/E1"));
    for (int i = 0; i < 20; i++) {
      for (ThrottleRequest r : others) {
        assertThat(throttle.throttles(r)).isFalse();
        assertThat(throttle.exchange(r, Answering.status(200))).isEqualTo(200);
      }
    }
    assertThat(pix.asked).as("no store command").hasValue(0);
    assertThat(dict.asked).hasValue(0);
    assertThat(registry.getMeters()).as("no meter made").hasSize(meters);
    assertThat(registry.find("bacen.throttle.wait").timers()).allSatisfy(t -> assertThat(t.count()).isZero());
    TestObservationRegistryAssert.assertThat(observations).doesNotHaveAnyObservation();
    assertThatThrownBy(() -> throttle.book(others.get(0))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no quota takes this request");
  }

  @Test
  void aThrottleWithADefaultBucketStillTakesEveryRequestNoQuotaMatches() throws Exception {
    Throttle throttle = ThrottleTesting.onTime(Throttle.builder(pix), time).maxWait(Duration.ZERO)
        .quota("dict", Match.host("dict.example.com"), dict, 1).build();
    assertThat(throttle.throttles(to("auth.example.com", "POST", "/oauth/token"))).isTrue();
    throttle.exchange(to("auth.example.com", "POST", "/oauth/token"), Answering.status(200));
    assertThat(pix.asked).hasValue(1);
  }

  @Test
  void badQuotasAreRefusedAtOnceNamingTheValue() {
    assertThatThrownBy(() -> Match.host("https://pix.example.com")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("host must be a host name or address without scheme, port or path, but was "
            + "'https://pix.example.com'");
    assertThatThrownBy(() -> Match.host("pix.example.com:443")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'pix.example.com:443'");
    assertThatThrownBy(() -> Match.any().path("/api/(")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("path must be a regular expression, but was '/api/('");
    assertThatThrownBy(() -> Throttle.builder().quota("pix", Match.any(), pix, 1).quota("pix", Match.any(), dict, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("quota name must be unique, but 'pix' was given twice");
    assertThatThrownBy(() -> Throttle.builder().quota("pix dict", Match.any(), pix, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'pix dict'");
    assertThatThrownBy(() -> Throttle.builder().defaultPool(new LocalPermitPool("spi", 6, Duration.ofSeconds(60)))
        .providerTimeout(Duration.ofSeconds(5)).build()).isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("defaultPool needs a default bucket");
  }
}
