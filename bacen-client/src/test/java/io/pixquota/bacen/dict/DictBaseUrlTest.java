package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.store.LocalBucketGroup;
import java.io.InputStream;
import java.net.URI;
import java.time.OffsetDateTime;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Headers;
import org.junit.jupiter.api.Test;

/**
 * DICT where the published specification (1.8.0) serves it, {@code /api/v1/}, given as the base URL and used as
 * given; and its own example answer, {@code GetEntryResponse}, read field by field.
 */
class DictBaseUrlTest {
  @Test
  void aLookupGoesToEntriesBelowTheBaseUrlAndTheSpecificationsExampleAnswerReads() throws Exception {
    byte[] example;
    try (InputStream in = getClass().getResourceAsStream("GetEntryResponse.xml")) {
      example = in.readAllBytes();
    }
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(200).headers(Headers.of("Content-Type", "application/xml"))
          .body(new String(example, java.nio.charset.StandardCharsets.UTF_8)).build());
      server.start();
      URI base = URI.create(server.url("/api/v1").toString()); // without its '/': still the directory
      try (DictClient dict = DictClient.builder(DictClientConfig.builder().baseUrl(base).participant("12345678")
          .payerSecret("a-secret-of-the-psp-0001").policies(DictPolicies.later('F')).build())
          .bucketGroup(new LocalBucketGroup("dict", System::nanoTime)).build()) {
        DictEntry e = dict.getEntry("maria@example.com", "12345678909");
        RecordedRequest request = server.takeRequest();
        assertThat(request.getUrl().encodedPath()).isEqualTo("/api/v1/entries/maria@example.com");
        assertThat(e.key()).isEqualTo("maria@example.com");
        assertThat(e.keyType()).isEqualTo(DictKey.Type.EMAIL);
        assertThat(e.participant()).isEqualTo("87654321");
        assertThat(e.branch()).isEqualTo("0001");
        assertThat(e.accountNumber()).isEqualTo("0007654321");
        assertThat(e.accountType()).isEqualTo("CACC");
        assertThat(e.ownerType()).isEqualTo("NATURAL_PERSON");
        assertThat(e.ownerTaxIdNumber()).isEqualTo("12345678909");
        assertThat(e.ownerName()).isEqualTo("Maria da Silva");
        assertThat(e.creationDate()).isEqualTo(OffsetDateTime.parse("2020-01-10T10:00:00Z"));
        assertThat(e.keyOwnershipDate()).isEqualTo(OffsetDateTime.parse("2020-01-10T10:00:00Z"));
      }
    }
  }
}
