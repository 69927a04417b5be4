package io.pixquota.throttle;

import org.junit.jupiter.api.Test;

/**
 * pixquota-core's public API is the one kept in api/pixquota-core.api ({@code ApiDump}): a change a user's code sees is
 * a deliberate one.
 */
class PublicApiTest {
  @Test
  void thePublicApiIsTheOneKept() throws Exception {
    ApiDump.check("pixquota-core");
  }
}
