package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.ApiDump;
import org.junit.jupiter.api.Test;

/**
 * pixquota-spring-boot-autoconfigure's public API is the one kept in api/pixquota-spring-boot-autoconfigure.api ({@code
 * ApiDump}): a change a user's code sees is a deliberate one.
 */
class PublicApiTest {
  @Test
  void thePublicApiIsTheOneKept() throws Exception {
    ApiDump.check("pixquota-spring-boot-autoconfigure");
  }
}
