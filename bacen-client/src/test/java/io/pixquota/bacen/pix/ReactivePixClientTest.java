package io.pixquota.bacen.pix;

import io.pixquota.throttle.redis.RedissonStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.pixquota.harness.RefusalBound;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The reactive client end to end against the mock BACEN (10 + 10/s), its throttle's bucket in Redis: bursts within
 * the quota, one token for concurrent callers, PixClient's exceptions and retries, the caller's Context, a cancel.
 */
@ExtendWith(RedisExtension.class)
class ReactivePixClientTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  private MockBacen mock;
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicInteger tokenRequests = new AtomicInteger();
  private final List<String> seenInExchange = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    mock = MockBacen.start(MockConfig.defaults());
  }

  @AfterEach
  void stop() {
    mock.close();
  }

  /** What the application gives: a WebClient builder with a filter of its own, counting and reading the context. */
  private WebClient.Builder web() {
    return WebClient.builder().clientConnector(new JdkClientHttpConnector()).filter((request, next) ->
        Mono.deferContextual(c -> {
          if (request.url().getPath().endsWith("/oauth/token")) {
            tokenRequests.incrementAndGet();
          } else {
            seenInExchange.add(c.getOrDefault("tenant", "MISSING"));
          }
          return next.exchange(request);
        }));
  }

  private ReactivePixClient client(MockBacen provider, String secret, Throttle throttle) {
    return ReactivePixClient.builder(PixClientConfig.builder().baseUrl(provider.pixUrl())
        .credentials("demo", secret).build()).throttle(throttle).webClient(web()).meterRegistry(registry).build();
  }

  @Test
  void aBurstOf40IsServedWithinTheQuotaOnOneToken(TestRedis redis) {
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
        TokenBucketConfig.custom("reactive")
        .limit(8, 9).keyPrefix(redis.keyPrefix()).build());
    Throttle throttle = Throttle.builder(bucket).meterRegistry(registry).maxWait(Duration.ofSeconds(10)).build();
    ReactivePixClient pix = client(mock, "demo-secret", throttle);
    pix.warmUp().block(Duration.ofSeconds(10));
    List<Pix> got = Flux.range(0, 40).flatMap(i -> pix.getPix(String.format("E12345678202611301200ABCDEF%05d", i)),
        40).collectList().block(Duration.ofSeconds(30));
    assertThat(got).hasSize(40).allSatisfy(p -> assertThat(p.valor()).isPositive());
    Map<String, Object> stats = mock.stats("demo", false);
    double jitter = max("bacen.throttle.lateness") + max("bacen.throttle.answer");
    long allowed = RefusalBound.allowed(10, 10, 8, 9, jitter);
    System.out.printf("reactive burst of 40: within %.1f ms of their slots (allows %d x 429); the mock refused %s%n",
        jitter * 1000, allowed, stats.get("refused"));
    assertThat(((Number) stats.get("refused")).longValue()).as("the mock's count: %s", stats)
        .isLessThanOrEqualTo(allowed);
    assertThat(tokenRequests).as("one token for 40 concurrent callers, fetched by the warm-up").hasValue(1);
  }

  @Test
  void failuresAreTypedAsPixClientsAndRefusedIdsSendNothing() {
    Throttle throttle = Throttle.builder(new LocalTokenBucket("pix", List.of(Limit.of(8, 9)), System::nanoTime))
        .build();
    ReactivePixClient pix = client(mock, "demo-secret", throttle);
    assertThatThrownBy(() -> pix.getPix("E12345678202611301200ABCDEFGH404").block(Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(PixNotFoundException.class, e -> {
          assertThat(e.problemType()).isEqualTo("https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado");
          assertThat(e.correlationId()).hasSize(36);
        });
    assertThat(registry.get("bacen.client.requests").tag("operation", "getPix").tag("outcome", "not_found").timer()
        .count()).isEqualTo(1);
    ReactivePixClient wrong = client(mock, "not-the-secret", throttle);
    assertThatThrownBy(() -> wrong.getPix(E2E).block(Duration.ofSeconds(10)))
        .isInstanceOfSatisfying(PixAccessDeniedException.class, e -> assertThat(e.status()).isEqualTo(401))
        .hasMessageNotContaining("not-the-secret");
    assertThatThrownBy(() -> pix.getPix("E123")).isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("endToEndId");
    assertThat(seenInExchange).as("only the 404 and nothing for the bad id").hasSize(1);
  }

  @Test
  void a429IsRetriedAfterItsRetryAfterAndTheCallSucceeds() throws Exception {
    try (MockBacen strict = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(2, 2, 1000))
        .retryAfterSeconds(1).build())) {
      Throttle generous = Throttle.builder(new LocalTokenBucket("pix", List.of(Limit.of(100, 100)),
          System::nanoTime)).build(); // a bucket above the provider's quota: its 429s come
      ReactivePixClient pix = client(strict, "demo-secret", generous);
      List<Pix> got = Flux.range(0, 4).flatMap(i -> pix.getPix(String.format("E12345678202611301200ABCDEF%05d",
          i))).collectList().block(Duration.ofSeconds(20));
      assertThat(got).hasSize(4);
      assertThat(registry.get("bacen.client.answers").tag("status", "429").counters().stream()
          .mapToDouble(c -> c.count()).sum()).as("the provider's 429s, each retried").isPositive();
      assertThat(registry.get("bacen.client.retries").tag("operation", "getPix").counter().count()).isPositive();
      assertThat(registry.get("bacen.client.requests").tag("outcome", "success").timer().count()).isEqualTo(4);
    }
  }

  @Test
  void theCallersContextReachesTheExchangeAndACancelBeforeTheSlotGivesItBack() {
    // 1 burst, 1/s: a call cancelled while it waits for the slot 1 s away must give it back, or the next call's slot
    // is 2 s away, past its max wait of 1.5 s
    Throttle throttle = Throttle.builder(new LocalTokenBucket("pix", List.of(Limit.of(1, 1)), System::nanoTime))
        .maxWait(Duration.ofMillis(1500)).build();
    ReactivePixClient pix = client(mock, "demo-secret", throttle);
    assertThat(pix.getPix(E2E).contextWrite(Context.of("tenant", "acme")).block(Duration.ofSeconds(10))
        .endToEndId()).isEqualTo(E2E);
    assertThat(seenInExchange).containsExactly("acme");
    Disposable waiting = pix.getPix(E2E).subscribe(); // booked on this thread: the token is cached
    waiting.dispose();
    assertThat(pix.getPix(E2E).block(Duration.ofSeconds(10)).endToEndId()).as("the slot given back").isEqualTo(E2E);
    assertThat(((Number) mock.stats("demo", false).get("accepted")).longValue()).as("the cancelled call not sent")
        .isEqualTo(2);
  }

  private double max(String timer) {
    return registry.find(timer).timers().stream().mapToDouble(t -> t.max(TimeUnit.SECONDS)).max().orElse(0);
  }

  @Test
  void theWaitIsNeitherInTheHttpClientsTimingNorUnderItsObservation() {
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(registry));
    Map<String, String> parents = new ConcurrentHashMap<>();
    observations.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public void onStart(Observation.Context context) {
        Observation parent = context.getParentObservation() == null ? null
            : (Observation) context.getParentObservation();
        // "mixed" when one name had several parents: then no entry says "caller"
        parents.merge(context.getName(), parent == null ? "none" : parent.getContext().getName(),
            (a, b) -> a.equals(b) ? a : "mixed");
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    // 1 burst, 2/s: three calls at once, the third waits 1 s for its slot
    Throttle throttle = Throttle.builder(new LocalTokenBucket("pix", List.of(Limit.of(1, 2)), System::nanoTime))
        .observationRegistry(observations).maxWait(Duration.ofSeconds(5)).build();
    ReactivePixClient pix = ReactivePixClient.builder(PixClientConfig.builder().baseUrl(mock.pixUrl())
        .credentials("demo", "demo-secret").build()).throttle(throttle)
        .webClient(web().observationRegistry(observations)).build();
    pix.warmUp().block(Duration.ofSeconds(10));
    parents.clear(); // the warm-up's token request had no caller
    Observation caller = Observation.start("caller", observations);
    Flux.range(0, 3).flatMap(i -> pix.getPix(String.format("E12345678202611301200ABCDEF%05d", i)))
        .contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, caller)).blockLast(Duration.ofSeconds(10));
    caller.stop();
    double client = registry.get("http.client.requests").timers().stream().mapToDouble(t -> t.max(TimeUnit.SECONDS))
        .max().orElseThrow();
    double wait = registry.get("pixquota.wait").timers().stream().mapToDouble(t -> t.max(TimeUnit.SECONDS))
        .max().orElseThrow();
    System.out.printf("http.client.requests max %.1f ms, the longest wait for a slot %.1f ms%n", client * 1000,
        wait * 1000);
    assertThat(wait).as("the third call's wait, s").isGreaterThanOrEqualTo(0.9);
    assertThat(client).as("the provider's answer alone, s").isLessThan(0.4);
    assertThat(parents).containsEntry("pixquota.wait", "caller").containsEntry("http.client.requests", "caller");
  }
}
