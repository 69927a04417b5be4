package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reserve's settings: the price a table implies, the defaults, the variables, what a config shows. */
class DictReserveSettingsTest {
  private static final Map<String, String> ENV = Map.of("DICT_BASE_URL", "https://dict.example.com",
      "DICT_PARTICIPANT", "12345678", "DICT_PAYER_SECRET", "a-secret-of-the-psp-0001");

  @Test
  void thePriceIsWhatANotFoundLookupCostsAParticipantBucketInFoundLookups() {
    assertThat(DictReserve.defaults().pricedFor(DictPolicies.later('F')).price()).as("a 404 costs 3, a 200 1")
        .isEqualTo(3);
    assertThat(DictReserve.defaults().pricedFor(DictPolicies.v120()).price()).as("a 404 costs the participant "
        + "nothing more than a 200").isEqualTo(1);
    assertThat(new DictReserve(0.5, 0.75, 7, Duration.ofDays(1)).pricedFor(DictPolicies.later('F')).price())
        .as("given, kept").isEqualTo(7);
  }

  @Test
  void theDefaultsKeepHalfOfEachParticipantBucketAndThreeQuartersFromRiskyLookups() {
    DictClientConfig c = DictClientConfig.fromEnvironment(ENV);
    assertThat(c.reserve()).isEqualTo(new DictReserve(0.5, 0.75, 1, Duration.ofDays(30)));
    assertThat(c.reserve().tokens(DictLookup.Trust.NORMAL, 250)).isEqualTo(125);
    assertThat(c.reserve().tokens(DictLookup.Trust.RISKY, 250)).isEqualTo(187.5);
    assertThat(c.reserve().tokens(DictLookup.Trust.TRUSTED, 250)).isZero();
    assertThat(c.toString()).contains("reserve=0.5/0.75 price 1").doesNotContain("a-secret");
  }

  @Test
  void theVariablesSetEachPart() {
    Map<String, String> env = new java.util.HashMap<>(ENV);
    env.putAll(Map.of("DICT_POLICIES", "later:F", "DICT_RESERVE", "0.3", "DICT_RISKY_RESERVE", "0.9",
        "DICT_STANDING_PRICE", "4", "DICT_STANDING_TTL_MS", "86400000"));
    assertThat(DictClientConfig.fromEnvironment(env).reserve())
        .isEqualTo(new DictReserve(0.3, 0.9, 4, Duration.ofDays(1)));
    env.put("DICT_RESERVE", "0.9");
    env.remove("DICT_RISKY_RESERVE");
    assertThat(DictClientConfig.fromEnvironment(env).reserve().riskyShare()).as("never below the reserve")
        .isEqualTo(0.9);
  }
}
