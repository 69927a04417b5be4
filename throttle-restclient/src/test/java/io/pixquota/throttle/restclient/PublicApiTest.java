package io.pixquota.throttle.restclient;

import io.pixquota.throttle.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * pixquota-restclient's public API is the one kept in api/pixquota-restclient.api ({@code ApiDump}): a change a user's
 * code sees is a deliberate one.
 */
class PublicApiTest {
  @Test
  void thePublicApiIsTheOneKept() throws Exception {
    ApiDump.check("pixquota-restclient");
  }
}
