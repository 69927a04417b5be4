package io.pixquota.bacen;

import io.pixquota.throttle.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * bacen-client's public API is the one kept in api/bacen-client.api ({@code ApiDump}): a change a user's code sees is a
 * deliberate one.
 */
class PublicApiTest {
  @Test
  void thePublicApiIsTheOneKept() throws Exception {
    ApiDump.check("bacen-client");
  }
}
