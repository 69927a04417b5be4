package io.pixquota.throttle.okhttp;

import io.pixquota.throttle.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * pixquota-okhttp's public API is the one kept in api/pixquota-okhttp.api ({@code ApiDump}): a change a user's code
 * sees is a deliberate one.
 */
class PublicApiTest {
  @Test
  void thePublicApiIsTheOneKept() throws Exception {
    ApiDump.check("pixquota-okhttp");
  }
}
