package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bacen-demo --dict} end to end: the judge's DICT in this process, the mirror in Redis (REDIS_URL or the
 * embedded binary), two replicas' honest users and a scanner, direct and through the SDK.
 */
class DictDemoRunIT {
  @TempDir
  Path dir;

  @Test
  void directTheScanCostsHonestUsersTheirLookupsThroughTheSdkNoneAndDictNever429s() throws Exception {
    Path report = dir.resolve("dict-report.html");
    DemoRunIT.Run run = DemoRunIT.run(new DemoMain(), "--dict", "--json", "--duration", "12", "--report",
        report.toString());
    JsonNode result = run.json();
    assertThat(result.get("policies").asText()).isEqualTo("later:F");

    JsonNode direct = result.get("direct");
    assertThat(direct.at("/scanner/providerRefused").asLong()).as("DICT refused the scanner once its bucket was "
        + "spent, and charged the participant for each refusal").isPositive();
    if (direct.get("participantTokensMin").asDouble() < 1) {
      assertThat(direct.at("/honest/refused/429 ENTRIES_READ_PARTICIPANT_ANTISCAN").asLong())
          .as("the participant's bucket ran dry: honest users got 429; %s", run.describe()).isPositive();
    }

    JsonNode sdk = result.get("sdk");
    assertThat(sdk.at("/honest/served").asLong()).as("every honest lookup served").isPositive()
        .isEqualTo(sdk.at("/honest/lookups").asLong());
    assertThat(sdk.at("/scanner/refusedLocally").asLong()).as("the scanner refused by the mirror").isPositive();
    assertThat(sdk.at("/scanner/sent").asLong()).as("5 x 404 spend its 100 tokens; the 1 in 10 keys that exist "
        + "cost 1 each").isBetween(5L, 10L);
    for (JsonNode n : sdk.get("provider429ByPolicy")) {
      assertThat(n.asLong()).as("0 x 429 from DICT through the SDK; %s", run.describe()).isZero();
    }
    assertThat(sdk.get("participantTokensMin").asDouble()).as("the participant's bucket kept for everyone")
        .isGreaterThan(direct.get("participantTokensMin").asDouble()).isGreaterThanOrEqualTo(200);
    assertThat(sdk.get("mirrorRoundTripsPerLookup").asDouble()).isBetween(1.0, 1.2);
    assertThat(run.exit()).as(run.describe()).isZero();

    String html = Files.readString(report);
    assertThat(html).contains("data-run=\"direct\"", "data-run=\"sdk\"", "ENTRIES_READ_PARTICIPANT_ANTISCAN 250 at "
        + "25 per 60 s");
  }
}
