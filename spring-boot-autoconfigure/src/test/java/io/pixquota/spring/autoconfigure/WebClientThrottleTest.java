package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.throttle.webclient.ThrottlingExchangeFilterFunction;
import io.pixquota.testing.RedisExtension;
import io.pixquota.throttle.Awaits;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The auto-configured {@link ThrottlingExchangeFilterFunction} on a real {@code WebClient} (the JDK's HTTP client
 * connector), against the mock BACEN and a real Redis: a burst of 30 leaves at its slots with 0 x 429 and no thread
 * waiting for a slot; a disposed subscription gives its tokens back and sends nothing; past the max wait, refused.
 */
@ExtendWith(RedisExtension.class)
class WebClientThrottleTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  private ApplicationContextRunner runner(TestRedis redis, String bucket, String... more) {
    return WebClientTesting.runner(redis, bucket, more);
  }

  private static String bearer(MockBacen mock) {
    return WebClientTesting.bearer(mock);
  }

  /** Records the thread each request is sent on: the filter after the throttle's. */
  private static ExchangeFilterFunction sentOn(Set<String> threads) {
    return (request, next) -> {
      threads.add(Thread.currentThread().getName());
      return next.exchange(request);
    };
  }

  @Test
  void aBurstOf30LeavesAtItsSlotsWith0x429AndNoThreadWaitsForASlot(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      runner(redis, "wc-burst", "pixquota.bucket.capacity=8", "pixquota.bucket.rate=9").run(context -> {
        assertThat(context).hasNotFailed().hasSingleBean(ThrottlingExchangeFilterFunction.class);
        WebClient.Builder builder = WebClient.builder().clientConnector(new JdkClientHttpConnector());
        context.getBeanProvider(WebClientCustomizer.class).orderedStream().forEach(c -> c.customize(builder));
        Set<String> sentOn = ConcurrentHashMap.newKeySet();
        WebClient pix = builder.baseUrl(mock.url().toString()).filter(sentOn(sentOn))
            .defaultHeader("Authorization", "Bearer " + bearer(mock)).build();
        pix.get().uri("/api/v2/pix/{id}", E2E).retrieve().toBodilessEntity().block(Duration.ofSeconds(10)); // warm
        long acceptedBefore = (Long) mock.stats("demo", false).get("accepted");
        AtomicInteger subscribed = new AtomicInteger();
        List<Integer> statuses = Flux.range(0, 30).subscribeOn(Schedulers.parallel())
            .flatMap(i -> pix.get().uri("/api/v2/pix/{id}", E2E).exchangeToMono(r -> Mono.just(r.statusCode()
                .value())).doOnSubscribe(s -> subscribed.incrementAndGet()), 30)
            .collectList().block(Duration.ofSeconds(30));
        assertThat(statuses).hasSize(30).containsOnly(200);
        assertThat(subscribed.get()).isEqualTo(30);
        Map<String, Object> stats = mock.stats("demo", false);
        assertThat(stats.get("refused")).as("the judge: %s", stats).isEqualTo(0L);
        assertThat((Long) stats.get("accepted") - acceptedBefore).isEqualTo(30);
        assertThat(sentOn).as("sent from the throttle's timer or the store's threads, never a Reactor scheduler's")
            .noneMatch(t -> t.startsWith("parallel-") || t.startsWith("boundedElastic-"));
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.get("bacen.throttle.wait").tag("bucket", "wc-burst").timer().count()).isEqualTo(31);
      });
    }
  }

  @Test
  void aDisposedSubscriptionGivesItsTokensBackAndSendsNothing(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      runner(redis, "wc-cancel", "pixquota.bucket.capacity=1", "pixquota.bucket.rate=0.5").run(context -> {
        WebClient pix = WebClient.builder().clientConnector(new JdkClientHttpConnector())
            .baseUrl(mock.url().toString()).filter(context.getBean(ThrottlingExchangeFilterFunction.class))
            .defaultHeader("Authorization", "Bearer " + bearer(mock)).build();
        assertThat(pix.get().uri("/api/v2/pix/{id}", E2E).retrieve().toBodilessEntity().block(Duration.ofSeconds(10))
            .getStatusCode().value()).isEqualTo(200); // the only token: the next slot is 2 s away
        long accepted = (Long) mock.stats("demo", false).get("accepted");
        List<Disposable> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          waiting.add(pix.get().uri("/api/v2/pix/{id}", E2E).retrieve().toBodilessEntity().subscribe());
        }
        TokenBucket bucket = context.getBean(TokenBucket.class);
        Awaits.until("the three booked their slots, 2, 4 and 6 s away", Duration.ofSeconds(10), () -> {
          try {
            return bucket.acquire(1, Duration.ZERO).waitTime().compareTo(Duration.ofSeconds(7)) > 0; // refused: asks
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
        waiting.forEach(Disposable::dispose);
        // The bucket holds its 3 booked slots' tokens again (given back asynchronously): a call now would wait no
        // longer than the first one's slot.
        Awaits.value("the three cancelled calls' slots given back: not 8 s away", Duration.ofSeconds(5), () -> {
          Duration wait = bucket.acquire(1, Duration.ZERO).waitTime();
          if (wait.compareTo(Duration.ofMillis(2_100)) >= 0) {
            throw new IllegalStateException("the next slot still " + wait + " away"); // given back asynchronously
          }
          return null;
        });
        assertThatThrownBy(() -> pix.get().uri("/api/v2/pix/{id}", E2E).retrieve().toBodilessEntity()
            .timeout(Duration.ofMillis(200)).block(Duration.ofSeconds(10)))
            .hasCauseInstanceOf(java.util.concurrent.TimeoutException.class);
        // that call's 200 ms: had any of the three been sent, the mock would count it by now
        assertThat(mock.stats("demo", false).get("accepted")).as("nothing sent").isEqualTo(accepted);
      });
    }
  }

  @Test
  void pastTheMaxWaitARequestIsRefusedAndNothingIsSent(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      runner(redis, "wc-refused", "pixquota.bucket.capacity=1", "pixquota.bucket.rate=0.1",
          "pixquota.max-wait=1s").run(context -> {
            WebClient pix = WebClient.builder().clientConnector(new JdkClientHttpConnector())
                .baseUrl(mock.url().toString()).filter(context.getBean(ThrottlingExchangeFilterFunction.class))
                .defaultHeader("Authorization", "Bearer " + bearer(mock)).build();
            pix.get().uri("/api/v2/pix/{id}", E2E).retrieve().toBodilessEntity().block(Duration.ofSeconds(10));
            long accepted = (Long) mock.stats("demo", false).get("accepted");
            assertThatThrownBy(() -> pix.get().uri("/api/v2/pix/{id}", E2E).retrieve().toBodilessEntity()
                .block(Duration.ofSeconds(10))).hasCauseInstanceOf(ThrottleRefusedException.class);
            assertThat(mock.stats("demo", false).get("accepted")).isEqualTo(accepted);
          });
    }
  }

  @Test
  void a429IsSettledAndABatchAttributeIsItsClass(TestRedis redis) throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "1").build());
      server.enqueue(new MockResponse.Builder().code(200).build());
      server.start();
      runner(redis, "wc-429").run(context -> {
        WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
            .baseUrl(server.url("/").toString()).filter(context.getBean(ThrottlingExchangeFilterFunction.class))
            .build();
        assertThat(client.get().uri("/a").exchangeToMono(r -> Mono.just(r.statusCode().value()))
            .block(Duration.ofSeconds(10))).isEqualTo(429);
        assertThat(client.get().uri("/a").attribute(ThrottlingExchangeFilterFunction.PRIORITY,
            io.pixquota.throttle.Priority.BATCH).exchangeToMono(r -> Mono.just(r.statusCode().value()))
            .block(Duration.ofSeconds(10))).isEqualTo(200);
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        // a 429 is settled off the client's thread (it waits for Redis): counted within moments
        Awaits.until("the 429 told to the bucket", Duration.ofSeconds(5), () -> registry.get(
            "bacen.throttle.provider.refused").tag("bucket", "wc-429").counter().count() >= 1);
        assertThat(registry.get("bacen.throttle.provider.refused").tag("bucket", "wc-429").counter().count())
            .isEqualTo(1);
        assertThat(registry.get("bacen.throttle.wait").tag("bucket", "wc-429").tag("priority", "batch").timer()
            .count()).isEqualTo(1);
        assertThatThrownBy(() -> client.get().uri("/a").attribute(ThrottlingExchangeFilterFunction.PRIORITY, "BATCH")
            .retrieve().toBodilessEntity().block(Duration.ofSeconds(10)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be a Priority, but was "
                + "java.lang.String");
      });
    }
  }

  @Test
  @SuppressWarnings("unchecked") // Micrometer's forAllObservationsWithNameEqualTo hands a raw ObservationContextAssert
  void theWaitIsAnObservationUnderTheWebClientsOwn(TestRedis redis) throws Exception {
    TestObservationRegistry observations = TestObservationRegistry.create();
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(new MockResponse.Builder().code(200).build());
      server.enqueue(new MockResponse.Builder().code(200).build());
      server.start();
      runner(redis, "wc-observed", "pixquota.bucket.capacity=1", "pixquota.bucket.rate=10")
          .withBean(ObservationRegistry.class, () -> observations).run(context -> {
            WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
                .observationRegistry(observations).baseUrl(server.url("/").toString())
                .filter(context.getBean(ThrottlingExchangeFilterFunction.class)).build();
            for (int i = 0; i < 2; i++) {
              client.get().uri("/a").retrieve().toBodilessEntity().block(Duration.ofSeconds(10));
            }
          });
    }
    TestObservationRegistryAssert.assertThat(observations)
        .hasNumberOfObservationsWithNameEqualTo("pixquota.wait", 2)
        .forAllObservationsWithNameEqualTo("pixquota.wait", o -> o.hasLowCardinalityKeyValue("outcome", "granted")
            .hasLowCardinalityKeyValue("bucket", "wc-observed")
            .hasParentObservationContextSatisfying(parent -> assertThat(((Observation.ContextView) parent)
                .getName()).isEqualTo("http.client.requests")))
        .hasAnObservationWithAKeyName("wait.ms"); // its exact figures: ThrottleObservationTest, on a clock it owns
  }

  @Test
  void theCustomizerCanBeTurnedOff(TestRedis redis) {
    runner(redis, "wc-off", "pixquota.webclient.customize=false").run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(ThrottlingExchangeFilterFunction.class)
          .doesNotHaveBean(WebClientCustomizer.class);
    });
  }
}
