package io.pixquota.throttle.webclient;

import io.pixquota.throttle.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * pixquota-webclient's public API is the one kept in api/pixquota-webclient.api ({@code ApiDump}): a change a user's
 * code sees is a deliberate one.
 */
class PublicApiTest {
  @Test
  void thePublicApiIsTheOneKept() throws Exception {
    ApiDump.check("pixquota-webclient");
  }
}
