package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The typed client end to end: real mock BACEN over HTTP, real Redis bucket. */
@ExtendWith(RedisExtension.class)
class PixClientAgainstMockBacenTest {
  static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  private MockBacen mock;
  private PixClient client;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @BeforeEach
  void start(TestRedis redis) throws Exception {
    mock = MockBacen.start(MockConfig.defaults());
    client = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
        .bucketName(redis.keyPrefix().replace(":", "-") + "pix").build())
        .redisson(redis.newRedisson()).meterRegistry(registry).build();
  }

  @AfterEach
  void stop() {
    client.close();
    mock.close();
  }

  @Test
  void getPixReturnsATypedImmutablePix() {
    Pix pix = client.getPix(E2E);
    assertThat(pix.endToEndId()).isEqualTo(E2E);
    assertThat(pix.txid()).matches("[a-zA-Z0-9]{26,35}");
    assertThat(pix.valor()).isGreaterThan(BigDecimal.ZERO);
    assertThat(pix.valor().scale()).isEqualTo(2);
    assertThat(pix.horario().getYear()).isEqualTo(2026);
    assertThat(pix.toString()).doesNotContain(E2E);
    assertThat(client.getPix(E2E)).as("same id, same Pix").isEqualTo(pix);
  }

  @Test
  void devolucoesCarryTheirStatusEnum() {
    int seen = 0;
    for (int i = 0; i < 40 && seen == 0; i++) {
      for (Devolucao d : client.getPix(String.format("E12345678202611301200ABCDEFG%04d", i)).devolucoes()) {
        assertThat(d.status()).isNotNull();
        assertThat(d.horario().solicitacao()).isNotNull();
        assertThat(d.valor()).isPositive();
        seen++;
      }
    }
    assertThat(seen).isPositive();
  }

  @Test
  void getCobReturnsItsStatus() {
    Cob cob = client.getCob("abcdefghijklmnopqrstuvwxyz12");
    assertThat(cob.txid()).isEqualTo("abcdefghijklmnopqrstuvwxyz12");
    assertThat(cob.status()).isNotNull();
    assertThat(cob.valor()).isPositive();
  }

  @Test
  void anUnknownPixIsATypedNotFoundWithTheProblemsTypeAndCorrelationId() {
    assertThatThrownBy(() -> client.getPix("E12345678202611301200ABCDEFGH404"))
        .isInstanceOfSatisfying(PixNotFoundException.class, e -> {
          assertThat(e.status()).isEqualTo(404);
          assertThat(e.problemType()).isEqualTo("https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado");
          assertThat(e.correlationId()).hasSize(36);
          assertThat(e.getMessage()).contains("404", "PixNaoEncontrado", e.correlationId());
        });
    assertThat(registry.get("bacen.client.requests").tag("operation", "getPix").tag("status", "404")
        .tag("outcome", "not_found").timer().count()).isEqualTo(1);
  }

  @Test
  void wrongCredentialsAreAccessDeniedAndNeverShowTheSecret() {
    try (PixClient wrong = PixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
        .credentials("demo", "not-the-secret").build()).tokenBucket(new LocalTokenBucket(
            "local", List.of(Limit.of(5, 5)), System::nanoTime)).build()) {
      assertThatThrownBy(() -> wrong.getPix(E2E)).isInstanceOfSatisfying(PixAccessDeniedException.class, e -> {
        assertThat(e.status()).isEqualTo(401);
        assertThat(e.getMessage()).doesNotContain("not-the-secret");
      });
    }
  }

  @Test
  void aClientSecretBeyondAsciiIsSentAsUtf8AndAccepted(TestRedis redis) throws Exception {
    String secret = "s\u00eacr\u00eat-\u00e7\u00e3o";
    try (MockBacen utf8 = MockBacen.start(MockConfig.builder().integrator("banco", secret).build());
        PixClient client = PixClient.builder(PixClientConfig.builder().baseUrl(utf8.pixUrl())
            .credentials("banco", secret).bucketName(redis.keyPrefix().replace(":", "-") + "utf8").build())
            .redisson(redis.newRedisson()).build()) {
      assertThat(client.getPix(E2E).endToEndId()).isEqualTo(E2E);
    }
  }

  @Test
  void malformedIdsAreRefusedBeforeAnyIo() {
    assertThatThrownBy(() -> client.getPix("E12345678202611301200ABCDEFGHIJ"))
        .isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("endToEndId must have 32 characters, but 'E12345678...' has 31");
    assertThatThrownBy(() -> client.getPix("X12345678202611301200ABCDEFGHIJK"))
        .hasMessage("endToEndId must be E + ISPB (8 digits or capitals) + yyyyMMddHHmm + 11 alphanumerics, but "
            + "'X12345678...' is not");
    assertThatThrownBy(() -> client.getCob("short")).isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("txid must be 26 to 35 letters or digits, but 'short' is not");
    assertThatThrownBy(() -> client.getPix(null)).isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("endToEndId cannot be null");
    assertThat(mock.stats("demo", false).get("accepted")).isEqualTo(0L);
  }

  @Test
  void callsPassThroughTheBucketAndTheWaitIsMeasured() {
    long t0 = System.nanoTime();
    for (int i = 0; i < 20; i++) {
      client.getPix(E2E);
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    assertThat(elapsed).as("20 calls through burst 8, 9/s take at least (20 - 8) / 9 s")
        .isGreaterThanOrEqualTo((20 - 8) / 9.0 - 0.01);
    assertThat(registry.get("bacen.throttle.wait").timer().count()).isEqualTo(20);
    assertThat(registry.get("bacen.throttle.wait").timer().totalTime(TimeUnit.MILLISECONDS))
        .isGreaterThan(100);
    assertThat(mock.stats("demo", false).get("refused")).isEqualTo(0L);
  }

  @Test
  void configToStringHidesTheSecret() {
    PixClientConfig config = PixClientConfig.builder().baseUrl(URI.create("https://x.example"))
        .credentials("bank", "s3cr3t").redisUrl("redis://user:pa55@redis:6379").maxWait(Duration.ofSeconds(1))
        .build();
    assertThat(config.toString()).doesNotContain("s3cr3t").doesNotContain("pa55").contains("bank", "****");
  }
}
