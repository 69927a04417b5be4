package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bacen-demo --dict} end to end: the judge's DICT in this process, the mirror in Redis (REDIS_URL or the
 * embedded binary), two replicas' payers with standing and new payers, and a scanner that takes a new end-user id for
 * every lookup, direct and through the SDK.
 */
class DictDemoRunIT {
  @TempDir
  Path dir;

  @Test
  void directTheScanCostsHonestPayersTheirLookupsThroughTheSdkPayersWithStandingNoneAndDictNever429s()
      throws Exception {
    Path report = dir.resolve("dict-report.html");
    DemoRunIT.Run run = DemoRunIT.run(new DemoMain(), "--dict", "--json", "--duration", "12", "--report",
        report.toString());
    JsonNode result = run.json();
    assertThat(result.get("policies").asText()).isEqualTo("later:F");
    assertThat(result.get("scanner").asText()).isEqualTo("rotate");

    JsonNode direct = result.get("direct");
    assertThat(direct.at("/scanner/providerRefused").asLong()).as("DICT refused the scanner once the participant's "
        + "bucket was spent, and charged the participant for each refusal").isPositive();
    if (direct.get("participantTokensMin").asDouble() < 1) {
      assertThat(direct.at("/withStanding/outcomes/429 ENTRIES_READ_PARTICIPANT_ANTISCAN").asLong())
          .as("the participant's bucket ran dry: payers with standing got 429; %s", run.describe()).isPositive();
    }

    JsonNode sdk = result.get("sdk");
    assertThat(sdk.at("/withStanding/served").asLong()).as("every lookup of a payer with standing served")
        .isPositive().isEqualTo(sdk.at("/withStanding/lookups").asLong());
    assertThat(sdk.at("/scanner/refusedByMirror").asLong()).as("the scanner refused by the mirror").isPositive();
    assertThat(sdk.at("/scanner/notFound").asLong()).as("the bucket above the reserve, (250 - 125) / 3, and what "
        + "refills in 12 s").isBetween(30L, 45L);
    for (JsonNode n : sdk.get("provider429ByPolicy")) {
      assertThat(n.asLong()).as("0 x 429 from DICT through the SDK; %s", run.describe()).isZero();
    }
    assertThat(sdk.get("participantTokensMin").asDouble()).as("the reserve kept, less the payers' own lookups")
        .isGreaterThan(direct.get("participantTokensMin").asDouble()).isGreaterThanOrEqualTo(80);
    assertThat(sdk.get("roundTripsPerRefusal").asDouble()).as("refusals decided without a round trip")
        .isLessThanOrEqualTo(0.05);
    assertThat(run.exit()).as(run.describe()).isZero();

    String html = Files.readString(report);
    assertThat(html).contains("data-run=\"direct\"", "data-run=\"sdk\"", "ENTRIES_READ_PARTICIPANT_ANTISCAN 250 at "
        + "25 per 60 s");
  }
}
