package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixTransportException;
import io.pixquota.bacen.pix.ReactivePixClient;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.io.IOException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.tls.HandshakeCertificates;
import okhttp3.tls.HeldCertificate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

/**
 * {@code pixquota.provider.ssl-bundle}: the auto-configured PixClient, and in a reactive application the
 * ReactivePixClient, present the bundle's client certificate to a provider that requires one (an HTTPS server with
 * client authentication and a CA of the test's own).
 */
@ExtendWith(RedisExtension.class)
class MutualTlsTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  private static final String PIX_JSON = "{\"endToEndId\":\"" + E2E + "\",\"txid\":\"abcdefghijklmnopqrstuvwxyz1\","
      + "\"valor\":\"10.50\",\"horario\":\"2026-11-30T12:00:05.000Z\"}";

  private final HeldCertificate root = new HeldCertificate.Builder().certificateAuthority(0)
      .commonName("test root").build();
  private final HeldCertificate serverCert = new HeldCertificate.Builder().signedBy(root).commonName("provider")
      .addSubjectAlternativeName("localhost").build();
  private final HeldCertificate clientCert = new HeldCertificate.Builder().signedBy(root)
      .commonName("integrator-12345678").build();
  private final MockWebServer server = new MockWebServer();
  private final List<String> clientNames = new CopyOnWriteArrayList<>();
  private ApplicationContextRunner runner;
  private String[] properties;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    HandshakeCertificates serverTls = new HandshakeCertificates.Builder().heldCertificate(serverCert)
        .addTrustedCertificate(root.certificate()).build();
    server.useHttps(serverTls.sslSocketFactory());
    server.requireClientAuth();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        clientNames.add(((X509Certificate) request.getHandshake().peerCertificates().get(0))
            .getSubjectX500Principal().getName());
        String body = request.getUrl().encodedPath().equals("/oauth/token")
            ? "{\"access_token\":\"t\",\"expires_in\":3600}" : PIX_JSON;
        return new MockResponse.Builder().code(200).addHeader("Content-Type", "application/json").body(body)
            .build();
      }
    });
    server.start();
    properties = new String[] {"pixquota.redis.url=" + redis.uri(),
        "pixquota.bucket.key-prefix=" + redis.keyPrefix(), "pixquota.bucket.name=mtls",
        "pixquota.provider.base-url=" + server.url("/api/v2/"), "pixquota.provider.client-id=demo",
        "pixquota.provider.client-secret=demo-secret", "pixquota.provider.retry-max-attempts=1",
        "spring.ssl.bundle.pem.pix.truststore.certificate=" + root.certificatePem()};
    runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, PixQuotaAutoConfiguration.class))
        .withPropertyValues(properties);
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  @Test
  void theBundlesClientCertificateIsPresented() {
    runner.withPropertyValues("pixquota.provider.ssl-bundle=pix",
        "spring.ssl.bundle.pem.pix.keystore.certificate=" + clientCert.certificatePem(),
        "spring.ssl.bundle.pem.pix.keystore.private-key=" + clientCert.privateKeyPkcs8Pem()).run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(PixClient.class).getPix(E2E).endToEndId()).isEqualTo(E2E);
          assertThat(clientNames).hasSize(2).allSatisfy(n -> assertThat(n).isEqualTo("CN=integrator-12345678"));
        });
  }

  @Test
  void aBundleThatTrustsTheProviderButHoldsNoClientCertificateIsRefused() {
    runner.withPropertyValues("pixquota.provider.ssl-bundle=pix").run(context -> {
      assertThat(context).hasNotFailed();
      assertThatThrownBy(() -> context.getBean(PixClient.class).getPix(E2E))
          .isInstanceOf(PixTransportException.class);
      assertThat(clientNames).isEmpty();
    });
  }

  @Test
  void theReactiveClientPresentsTheSameBundlesCertificate() {
    new ReactiveWebApplicationContextRunner().withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class,
        PixQuotaAutoConfiguration.class, PixQuotaWebClientAutoConfiguration.class)).withPropertyValues(properties)
        .withPropertyValues("pixquota.provider.ssl-bundle=pix",
            "spring.ssl.bundle.pem.pix.keystore.certificate=" + clientCert.certificatePem(),
            "spring.ssl.bundle.pem.pix.keystore.private-key=" + clientCert.privateKeyPkcs8Pem()).run(context -> {
              assertThat(context).hasNotFailed().hasSingleBean(ReactivePixClient.class);
              assertThat(context.getBean(ReactivePixClient.class).getPix(E2E).block(Duration.ofSeconds(10))
                  .endToEndId()).isEqualTo(E2E);
              assertThat(clientNames).as("the token request and the call").hasSize(2)
                  .allSatisfy(n -> assertThat(n).isEqualTo("CN=integrator-12345678"));
            });
  }
}
