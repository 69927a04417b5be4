package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A provider that serves API Pix under its own prefix, as PSPs do ({@code /v2/} here, where BACEN's OpenAPI says
 * {@code /api/v2/}): the client's base URL is used as given, and nothing is appended below it.
 */
@ExtendWith(RedisExtension.class)
class ProviderPrefixTest {
  static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  static final String TXID = "abcdefghijklmnopqrstuvwxyz123";

  @Test
  void aClientWhoseBaseUrlIsThePspsPrefixReachesPixCobAndPoliciesBelowIt(TestRedis redis) throws Exception {
    try (MockBacen psp = MockBacen.start(MockConfig.builder().pixPrefix("/v2").build());
        PixClient pix = client(redis, psp.url().resolve("/v2"), "psp")) { // without the '/': the directory all the same
      assertThat(psp.pixUrl().getPath()).isEqualTo("/v2/");
      assertThat(pix.getPix(E2E).endToEndId()).isEqualTo(E2E);
      assertThat(pix.getCob(TXID).txid()).isEqualTo(TXID);
      assertThat(pix.getPolicy("pix").limit()).isEqualTo(10);
      assertThat(psp.stats("demo", false).get("accepted")).as("two API calls served under /v2/").isEqualTo(2L);
    }
  }

  @Test
  void aBaseUrlWithoutTheProvidersPrefixIsNotCompletedBehindTheUsersBack(TestRedis redis) throws Exception {
    try (MockBacen psp = MockBacen.start(MockConfig.defaults());
        PixClient pix = client(redis, psp.url(), "root")) {
      assertThatThrownBy(() -> pix.getPix(E2E)).as("GET /pix/...: no such endpoint at the provider")
          .isInstanceOf(PixNotFoundException.class);
      assertThat(psp.stats("demo", false).get("accepted")).isEqualTo(0L);
    }
  }

  private static PixClient client(TestRedis redis, URI baseUrl, String bucket) {
    return PixClient.builder(PixClientConfig.builder().baseUrl(baseUrl).credentials("demo", "demo-secret")
        .bucketName(redis.keyPrefix().replace(":", "-") + bucket).build()).redisson(redis.newRedisson()).build();
  }
}
