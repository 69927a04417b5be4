package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.TokenBucket;
import java.io.IOException;
import java.util.Map;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * {@code pixquota.quotas.<name>.*}: each quota takes the requests its host, method and path match, over its base
 * config; a request no quota takes is not throttled; a bad quota stops the start naming its property.
 */
@ExtendWith(RedisExtension.class)
class PixQuotaQuotasTest {
  private final MockWebServer server = new MockWebServer();
  private ApplicationContextRunner runner;
  /** The same, without a host for every quota. */
  private ApplicationContextRunner anyHost;
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return new MockResponse.Builder().code(200).body("ok").build();
      }
    });
    server.start();
    anyHost = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class))
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("pixquota.redis.url=" + redis.uri(), "pixquota.bucket.key-prefix=" + redis.keyPrefix(),
            "pixquota.max-wait=0s");
    runner = anyHost.withPropertyValues("pixquota.configs.default.host=" + server.getHostName());
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  @Test
  void eachQuotaTakesItsRequestsAndTheRestAreNotThrottled() {
    runner.withPropertyValues("pixquota.quotas.pix.path=/api/v2/.*", "pixquota.quotas.pix.capacity=1",
        "pixquota.quotas.pix.refill-per-second=0.001", "pixquota.quotas.spi.path=/spi/.*",
        "pixquota.quotas.spi.max-in-flight=2", "pixquota.quotas.spi.provider-timeout=5s").run(context -> {
          Throttle throttle = context.getBean(Throttle.class);
          assertThat(throttle.buckets()).extracting(TokenBucket::name).containsExactly("pix");
          assertThat(throttle.pools()).extracting(PermitPool::name).containsExactly("spi");
          RestClient rest = RestClient.builder().baseUrl(server.url("/").toString())
              .requestInterceptor(context.getBean(ThrottlingClientHttpRequestInterceptor.class)).build();
          assertThat(rest.get().uri("/api/v2/pix/E1").retrieve().body(String.class)).isEqualTo("ok");
          assertThatThrownBy(() -> rest.get().uri("/api/v2/pix/E2").retrieve().body(String.class))
              .isInstanceOf(ResourceAccessException.class).hasCauseInstanceOf(ThrottleRefusedException.class);
          for (int i = 0; i < 5; i++) {
            assertThat(rest.post().uri("/oauth/token").retrieve().body(String.class)).as("no quota: untouched")
                .isEqualTo("ok");
            assertThat(rest.get().uri("/spi/pay").retrieve().body(String.class)).as("a permit, given back")
                .isEqualTo("ok");
          }
          assertThat(server.getRequestCount()).isEqualTo(11);
          Map<String, Object> health = PixQuotaView.health(throttle).details();
          assertThat(health).containsKeys("pix", "inFlight");
          assertThat(((Map<?, ?>) ((Map<?, ?>) health.get("inFlight")).get("spi")).toString()).contains("maxInFlight=2")
              .contains("inUse=0");
        });
  }

  @Test
  void aDictQuotaIsADictClientWhoseLookupsGoThroughTheOneThrottle() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      runner.withPropertyValues("pixquota.quotas.pix.path=/api/v2/.*", "pixquota.quotas.pix.capacity=8",
          "pixquota.quotas.pix.refill-per-second=9", "pixquota.quotas.dict.dict.base-url=" + mock.dictUrl(),
          "pixquota.quotas.dict.dict.participant=12345678",
          "pixquota.quotas.dict.dict.payer-secret=a-secret-of-the-psp-0001").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(DictClient.class);
            DictClient dict = context.getBean(DictClient.class);
            assertThat(dict.getEntry("user7@example.com", "12345678909").key()).isEqualTo("user7@example.com");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("bacen.throttle.wait").tag("quota", "dict").timer().count())
                .as("the lookup waited in the service's one throttle, under its quota").isEqualTo(1);
            assertThat(context.getBean(Throttle.class).throttles(ThrottleRequest.of("GET", "/oauth/token")
                .withHost("auth.example.com"))).isFalse();
          });
    }
  }

  /**
   * Shares (issue 46): the service's requests count against its own share ({@code spring.application.name}), so a
   * storm of the merchant API leaves checkout the call its share keeps; a bad share stops the start naming it.
   */
  @Test
  void aServicesRequestsCountAgainstItsShareAndABadShareStopsTheStart() {
    String[] pix = {"spring.application.name=merchant-api", "pixquota.quotas.pix.path=/api/v2/.*",
        "pixquota.quotas.pix.capacity=8", "pixquota.quotas.pix.refill-per-second=0.001",
        "pixquota.quotas.pix.shares.checkout=6", "pixquota.quotas.pix.shares.merchant-api=3"};
    runner.withPropertyValues(pix).run(context -> {
      assertThat(context).hasNotFailed();
      Throttle throttle = context.getBean(Throttle.class);
      assertThat(throttle.buckets().get(0).shares()).isEqualTo(Map.of("checkout", 6.0, "merchant-api", 3.0,
          "*", 0.0));
      RestClient rest = RestClient.builder().baseUrl(server.url("/").toString())
          .requestInterceptor(context.getBean(ThrottlingClientHttpRequestInterceptor.class)).build();
      assertThat(throttle.exchange(ThrottleRequest.of("GET", "/api/v2/pix/C0").withHost(server.getHostName())
          .withFlow("checkout"), io.pixquota.throttle.Answering.status(200))).isEqualTo(200);
      int served = 0;
      for (int i = 0; i < 8; i++) {
        try {
          served += "ok".equals(rest.get().uri("/api/v2/pix/E" + i).retrieve().body(String.class)) ? 1 : 0;
        } catch (ResourceAccessException refused) {
          assertThat(refused).hasCauseInstanceOf(ThrottleRefusedException.class);
        }
      }
      assertThat(served).as("its own share, and what the others lend now; not checkout's last call").isEqualTo(5);
      assertThat(throttle.exchange(ThrottleRequest.of("GET", "/api/v2/pix/C").withHost(server.getHostName())
          .withFlow("checkout"), io.pixquota.throttle.Answering.status(200))).isEqualTo(200);
      Map<?, ?> view = (Map<?, ?>) ((Map<?, ?>) new PixQuotaEndpoint(throttle, context.getBean(MeterRegistry.class))
          .buckets().get("buckets")).get("pix");
      assertThat(view.get("shares").toString()).as("/actuator/pixquota: each flow's share")
          .contains("checkout={weight=6.0, guaranteedPerSecond=0.001}")
          .contains("merchant-api=");
      assertThat(view.get("flowCalls").toString()).contains("checkout={borrowed=0, own=2, refused=0}")
          .contains("merchant-api={borrowed=3, own=2, refused=3}");
    });
    runner.withPropertyValues(pix).withPropertyValues("pixquota.quotas.pix.shares.reconciliation=-1")
        .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("pixquota.quotas.pix.shares")
            .hasMessageContaining("reconciliation"));
    runner.withPropertyValues("pixquota.quotas.spi.max-in-flight=6", "pixquota.quotas.spi.provider-timeout=5s",
        "pixquota.quotas.spi.shares.checkout=1").run(context -> assertThat(context).getFailure().rootCause()
        .hasMessageContaining("pixquota.quotas.spi.shares").hasMessageContaining("shares divide a rate"));
  }

  /**
   * A catch-all quota and API Pix's, declared in either order: API Pix's calls go to API Pix's quota (the most
   * specific), the others to the catch-all, and {@code /actuator/pixquota} shows the order a request tries them.
   */
  @Test
  void overlappingQuotasTakeTheSameRequestsWhateverTheOrderTheyAreDeclaredIn() {
    String host = server.getHostName();
    String[] wide = {"pixquota.quotas.wide.path=/api/.*",
        "pixquota.quotas.wide.capacity=100", "pixquota.quotas.wide.refill-per-second=100"};
    String[] pix = {"pixquota.quotas.pix.host=" + host, "pixquota.quotas.pix.path=/api/v2/.*",
        "pixquota.quotas.pix.capacity=1",
        "pixquota.quotas.pix.refill-per-second=0.001"};
    for (boolean wideFirst : new boolean[] {true, false}) {
      String[] both = wideFirst ? concat(wide, pix) : concat(pix, wide);
      anyHost.withPropertyValues(both).withPropertyValues("pixquota.bucket.key-prefix=" + redis.keyPrefix()
          + wideFirst).run(context -> {
        assertThat(context).hasNotFailed();
        Throttle throttle = context.getBean(Throttle.class);
        assertThat(throttle.routing()).as("wide first: %s", wideFirst).containsExactly(
            "quota 'pix': " + host + " /api/v2/.*", "quota 'wide': any host /api/.*");
        RestClient rest = RestClient.builder().baseUrl(server.url("/").toString())
            .requestInterceptor(context.getBean(ThrottlingClientHttpRequestInterceptor.class)).build();
        assertThat(rest.get().uri("/api/v2/pix/E1").retrieve().body(String.class)).isEqualTo("ok");
        assertThatThrownBy(() -> rest.get().uri("/api/v2/pix/E2").retrieve().body(String.class))
            .as("API Pix's quota of 1, spent: the catch-all declared %s did not take it", wideFirst ? "first"
                : "last").hasCauseInstanceOf(ThrottleRefusedException.class);
        for (int i = 0; i < 5; i++) {
          assertThat(rest.get().uri("/api/v1/other").retrieve().body(String.class)).isEqualTo("ok");
        }
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.get("bacen.throttle.wait").tag("quota", "wide").timer().count()).isEqualTo(5);
      });
    }
    runner.withPropertyValues(concat(pix, new String[] {"pixquota.quotas.again.path=/api/v2/.*",
        "pixquota.quotas.again.capacity=5", "pixquota.quotas.again.refill-per-second=5"})).run(context ->
        assertThat(context).getFailure().rootCause().hasMessageContaining("quota 'again'")
            .hasMessageContaining("quota 'pix'").hasMessageContaining("neither is more specific"));
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * Named quotas that take none of the PixClient's requests (a host with a typo): the start fails naming the base
   * URL and the quotas, unless the service says it wants the PixClient unthrottled. A DICT quota whose host is not
   * its DictClient's fails too: its mirror would be bypassed.
   */
  @Test
  void aClientWhoseRequestsNoQuotaTakesFailsTheStartNamingItsBaseUrl() {
    String base = "http://" + server.getHostName() + ":" + server.getPort() + "/api/v2/";
    String[] typo = {"pixquota.provider.base-url=" + base, "pixquota.provider.client-id=id",
        "pixquota.provider.client-secret=secret", "pixquota.quotas.pix.host=pix.exmaple.com",
        "pixquota.quotas.pix.path=/api/v2/.*", "pixquota.quotas.pix.capacity=8",
        "pixquota.quotas.pix.refill-per-second=9"};
    anyHost.withPropertyValues(typo).run(context -> assertThat(context).getFailure().rootCause()
        .hasMessageContaining("pixquota.provider.base-url").hasMessageContaining(base)
        .hasMessageContaining("PixClient's requests (GET " + server.getHostName() + "/api/v2/pix/")
        .hasMessageContaining("quota 'pix': pix.exmaple.com /api/v2/.*")
        .hasMessageContaining("pixquota.provider.unthrottled=true"));
    anyHost.withPropertyValues(typo).withPropertyValues("pixquota.provider.unthrottled=true").run(context ->
        assertThat(context).hasNotFailed().hasSingleBean(io.pixquota.bacen.pix.PixClient.class));
    String[] right = typo.clone();
    right[3] = "pixquota.quotas.pix.host=" + server.getHostName();
    anyHost.withPropertyValues(right).run(context -> assertThat(context).as("the quota's host right: started")
        .hasNotFailed());
    anyHost.withPropertyValues("pixquota.quotas.dict.host=dict.example.com",
        "pixquota.quotas.dict.dict.base-url=http://127.0.0.1:1/api/v1/",
        "pixquota.quotas.dict.dict.participant=12345678",
        "pixquota.quotas.dict.dict.payer-secret=a-secret-of-the-psp-0001").run(context -> assertThat(context)
        .getFailure().rootCause().hasMessageContaining("pixquota.quotas.dict.dict.base-url")
        .hasMessageContaining("DictClient's requests (GET 127.0.0.1/api/v1/entries/")
        .hasMessageContaining("[quota 'dict': dict.example.com]").hasMessageNotContaining("=true"));
  }

  @Test
  void aBadQuotaStopsTheStartNamingItsProperty() {
    runner.withPropertyValues("pixquota.quotas.dict.dict.participant=12345678").run(context -> assertThat(context)
        .getFailure().rootCause().hasMessageContaining("pixquota.quotas.dict.dict")
        .hasMessageContaining("base-url and payer-secret are required"));
    runner.withPropertyValues("pixquota.quotas.empty.path=/x").run(context -> assertThat(context).getFailure()
        .rootCause().hasMessageContaining("pixquota.quotas.empty").hasMessageContaining("names no limit"));
    runner.withPropertyValues("pixquota.quotas.pix.host=https://pix.example.com", "pixquota.quotas.pix.capacity=1",
        "pixquota.quotas.pix.refill-per-second=1").run(context -> assertThat(context).getFailure().rootCause()
        .hasMessageContaining("pixquota.quotas.pix.host").hasMessageContaining("without scheme, port or path"));
    runner.withPropertyValues("pixquota.quotas.pix.base-config=nope", "pixquota.quotas.pix.capacity=1",
        "pixquota.quotas.pix.refill-per-second=1").run(context -> assertThat(context).getFailure().rootCause()
        .hasMessageContaining("pixquota.quotas.pix.base-config").hasMessageContaining("no pixquota.configs.nope"));
    runner.withPropertyValues("pixquota.quotas.spi.max-in-flight=6", "pixquota.max-in-flight=6").run(context ->
        assertThat(context).getFailure().rootCause().hasMessageContaining("pixquota.max-in-flight")
            .hasMessageContaining("pixquota.quotas.<name>.max-in-flight"));
    runner.withPropertyValues("pixquota.quotas.pix.capacity=1").run(context -> assertThat(context).getFailure()
        .rootCause().hasMessageContaining("pixquota.quotas.pix.capacity")
        .hasMessageContaining("refill-per-second is not set"));
  }

  @Test
  void aDeclaredProviderQuotaIsPlannedAndABadOneStopsTheStartNamingIt() {
    runner.withPropertyValues("pixquota.quotas.pix.provider-quota=600 per 1m", "pixquota.quotas.pix.plan-jitter=1s")
        .run(context -> assertThat(context.getBean(Throttle.class).buckets()).singleElement()
            .satisfies(b -> assertThat(b.limits().get(0)).as("a window: burst 1, (600 - 1) / (60 + 1) s")
                .isEqualTo(io.pixquota.throttle.store.Limit.of(1, 599 / 61.0))));
    runner.withPropertyValues("pixquota.quotas.pix.provider-quota=10 per second").run(context -> assertThat(context)
        .getFailure().rootCause().hasMessageContaining("pixquota.quotas.pix.provider-quota")
        .hasMessageContaining("'10 per second' is not a quota").hasMessageContaining("'10 + 10/s'"));
    runner.withPropertyValues("pixquota.quotas.pix.provider-quota=10 + 10/s", "pixquota.quotas.pix.capacity=8")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("pixquota.quotas.pix.provider-quota").hasMessageContaining("not both"));
    runner.withPropertyValues("pixquota.quotas.pix.provider-quota=10 + 10/s", "pixquota.quotas.pix.plan-jitter=2s")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("pixquota.quotas.pix.plan-jitter").hasMessageContaining("J must be at most"));
    runner.withPropertyValues("pixquota.quotas.pix.provider-quota=10 + 10/s", "pixquota.quotas.pix.plan-jitter=0s")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("pixquota.quotas.pix.plan-jitter").hasMessageContaining("must be > 0"));
    runner.withPropertyValues("pixquota.quotas.pix.provider-quota=10 + 10/s", "pixquota.bucket.plan-from-policy=pix",
        "pixquota.provider.base-url=http://127.0.0.1:9/").run(context -> assertThat(context).getFailure()
        .rootCause().hasMessageContaining("pixquota.bucket.plan-from-policy")
        .hasMessageContaining("pixquota.quotas.<name>.provider-quota"));
  }

  /** Spring Boot binds the quotas' buckets (MeterBinder beans or not), and so does the throttle: once each, no WARN. */
  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void aStartWithBootsMetricsBindsEachMeterOnce(CapturedOutput output) {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
        CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
        PixQuotaAutoConfiguration.class)).withPropertyValues("pixquota.redis.url=" + redis.uri(),
        "pixquota.bucket.key-prefix=" + redis.keyPrefix(), "pixquota.bucket.name=once")
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(MeterRegistry.class).find("bacen.throttle.script.noscript").meters())
              .hasSize(1);
        });
    assertThat(output).doesNotContain("already registered").doesNotContain(" WARN ");
  }
}
