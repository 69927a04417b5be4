package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pixquota.throttle.store.LocalBucketGroup;
import java.net.URI;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Headers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The adversarial test's seventh finding: a DICT answer that did not parse put about 500 characters of its body (an
 * owner's name, a CPF) into the exception's message, and from there into application logs. A message names the
 * element, or the position in XML that does not parse; neither it nor any cause holds the body's content.
 */
class DictParseErrorsTest {
  private static final String NAME = "Maria da Silva";
  private static final String CPF = "12345678909";

  private static String entry(String keyType, String date, String tail) {
    return "<GetEntryResponse><Entry><Key>maria@example.com</Key><KeyType>" + keyType + "</KeyType><Account>"
        + "<Participant>87654321</Participant><Branch>0001</Branch><AccountNumber>1</AccountNumber><AccountType>CACC"
        + "</AccountType></Account><Owner><Type>NATURAL_PERSON</Type><TaxIdNumber>" + CPF + "</TaxIdNumber><Name>"
        + NAME + "</Name></Owner><CreationDate>" + date + "</CreationDate><KeyOwnershipDate>2020-01-10T10:00:00Z"
        + "</KeyOwnershipDate>" + tail;
  }

  static Stream<Arguments> answers() {
    return Stream.of(
        Arguments.of("XML cut off", entry("EMAIL", "2020-01-10T10:00:00Z", "<Broken></Entry>"),
            "Unexpected close tag </Entry>; expected </Broken>"),
        Arguments.of("a date that is a name", entry("EMAIL", NAME + " " + CPF, "</Entry></GetEntryResponse>"),
            "Entry/CreationDate is not a date-time (unreadable at index 0)"),
        Arguments.of("a key type that is a CPF", entry(CPF, "2020-01-10T10:00:00Z", "</Entry></GetEntryResponse>"),
            "Entry/KeyType is not one of [CPF, CNPJ, PHONE, EMAIL, EVP]"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("answers")
  void aMessageNamesTheElementOrThePositionNeverTheBodysContent(String what, String body, String expected)
      throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(200).headers(Headers.of("Content-Type", "application/xml"))
          .body(body).build());
      server.start();
      try (DictClient dict = DictClient.builder(DictClientConfig.builder()
          .baseUrl(URI.create(server.url("/api/v1/").toString())).participant("12345678")
          .payerSecret("a-secret-of-the-psp-0001").policies(DictPolicies.later('F')).build())
          .bucketGroup(new LocalBucketGroup("dict", System::nanoTime)).build()) {
        DictCallException e = catchThrowableOfType(DictCallException.class,
            () -> dict.getEntry("maria@example.com", "11122233344"));
        assertThat(e.getMessage()).startsWith("DICT's 200 is not a GetEntryResponse: ").contains(expected);
        for (Throwable t = e; t != null; t = t.getCause()) {
          assertThat(String.valueOf(t.getMessage())).as("%s: %s", what, t.getClass().getName())
              .doesNotContain(NAME).doesNotContain(CPF).doesNotContain("maria@example.com");
        }
      }
    }
  }
}
