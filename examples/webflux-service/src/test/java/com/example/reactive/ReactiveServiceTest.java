package com.example.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RefusalBound;
import io.pixquota.harness.SchedulingLag;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.slf4j.MDC;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The reactive service as it runs on reactor-netty, with BlockHound installed (blockhound-junit-platform) and a
 * tracing bridge: a burst through its endpoint against the mock BACEN (10 + 10/s), counted at the mock; the tenant
 * of each request read by a WebClient filter in the exchange; the wait beside the client span, not inside it; a
 * wait cancelled by a timeout ends as an outcome, before its parent; a start without a WARN.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "management.tracing.enabled=true", "management.tracing.export.enabled=true",
    "management.tracing.sampling.probability=1.0",
    "pixquota.max-wait=15s"}) // both tests' bursts at once behind the bucket's 9/s: none refused for its wait
@Import(ReactiveServiceTest.Recorded.class)
@ExtendWith(OutputCaptureExtension.class)
class ReactiveServiceTest {
  private static final MockBacen MOCK = mock();
  private static final String GIVEN_REDIS = System.getProperty("redis.url", "");
  private static final PrivateRedisServer OWN_REDIS = GIVEN_REDIS.isBlank() || GIVEN_REDIS.startsWith("$")
      ? PrivateRedisServer.start() : null;

  @Value("${local.server.port}")
  private int port;

  @Autowired
  private MeterRegistry meters;

  @Autowired
  private Recorded recorded;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    registry.add("pixquota.provider.base-url", () -> "http://localhost:" + MOCK.url().getPort() + "/api/v2/");
    registry.add("pixquota.redis.url", () -> OWN_REDIS != null ? OWN_REDIS.uri().toString() : GIVEN_REDIS);
    registry.add("pixquota.bucket.key-prefix", () -> "webflux-" + System.nanoTime() + ":");
  }

  @AfterAll
  static void stop() {
    MOCK.close();
    if (OWN_REDIS != null) {
      OWN_REDIS.close();
    }
  }

  private static MockBacen mock() {
    try {
      return MockBacen.start(MockConfig.defaults());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every finished span, and the tenant each outbound exchange saw in its Reactor context. */
  @TestConfiguration(proxyBeanMethods = false)
  static class Recorded {
    final Queue<MutableSpan> spans = new ConcurrentLinkedQueue<>();
    final Queue<String> tenants = new ConcurrentLinkedQueue<>();
    final Queue<String> traceIds = new ConcurrentLinkedQueue<>();
    final AtomicInteger waitsStarted = new AtomicInteger();

    @Bean
    ObservationHandler<Observation.Context> countWaits() {
      return new ObservationHandler<>() {
        @Override
        public void onStart(Observation.Context context) {
          if ("pixquota.wait".equals(context.getName())) {
            waitsStarted.incrementAndGet();
          }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
          return true;
        }
      };
    }

    @Bean
    SpanHandler keepSpans() {
      return new SpanHandler() {
        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
          spans.add(span);
          return true;
        }
      };
    }

    @Bean
    WebClientCustomizer readTenant() {
      return builder -> builder.filter((request, next) -> Mono.deferContextual(c -> {
        if (request.url().getPath().contains("/pix/")) {
          tenants.add(c.getOrDefault(TenantFilter.TENANT, "MISSING"));
          traceIds.add(String.valueOf(MDC.get("traceId"))); // the thread's MDC, restored from the context
        }
        return next.exchange(request);
      }));
    }
  }

  private WebClient app() {
    return WebClient.create("http://localhost:" + port);
  }

  @Test
  void aBurstOf40IsServedWithinTheQuotaTheWaitBesideTheClientSpan(CapturedOutput output) {
    List<Integer> statuses;
    double lagMs;
    try (SchedulingLag lag = SchedulingLag.start()) {
      statuses = Flux.range(0, 40).flatMap(i -> app().get()
          .uri("/pix/{id}", String.format("E12345678202611301200ABCDEF%05d", i)).header("X-Tenant", "acme")
          .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())), 40)
          .collectList().block(Duration.ofSeconds(30));
      lagMs = lag.maxMs();
    }
    assertThat(statuses).hasSize(40).containsOnly(200);

    Map<String, Object> stats = MOCK.stats("demo", false);
    double answer = max("bacen.throttle.answer");
    long allowed = RefusalBound.allowed(10, 10, 8, 9, max("bacen.throttle.lateness") + answer);
    double client = meters.find("http.client.requests").timers().stream()
        .filter(t -> String.valueOf(t.getId().getTag("uri")).contains("/pix/"))
        .mapToDouble(t -> t.max(TimeUnit.SECONDS)).max().orElseThrow();
    System.out.printf("WebFlux burst of 40: the mock refused %s (the run's jitter allows %d); http.client.requests "
        + "max %.1f ms, the provider's answer max %.1f ms, the longest wait %.1f ms; threads woke up to %.1f ms "
        + "late%n", stats.get("refused"), allowed, client * 1000, answer * 1000, max("bacen.throttle.wait") * 1000,
        lagMs);
    assertThat(((Number) stats.get("refused")).longValue()).as("the mock's count: %s", stats)
        .isLessThanOrEqualTo(allowed);
    // with the wait inside, its max would be the longest wait's (seconds); without, the provider's answer (from the
    // send to its headers) and the body's read: within 50 ms of it, and of the threads' measured lateness
    assertThat(client).as("http.client.requests: the provider's answer, not the wait")
        .isLessThan(max("bacen.throttle.wait") / 2).isLessThanOrEqualTo(answer + 0.050 + lagMs / 1000);
    assertThat(recorded.tenants).hasSizeGreaterThanOrEqualTo(40).containsOnly("acme");
    assertThat(recorded.traceIds).as("MDC's traceId in the exchange, on whichever thread the slot came")
        .hasSizeGreaterThanOrEqualTo(40).doesNotContain("null");

    MutableSpan wait = recorded.spans.stream().filter(s -> "waiting for quota".equals(s.name()))
        .max((a, b) -> Long.compare(duration(a), duration(b))).orElseThrow();
    MutableSpan server = parentOf(wait);
    assertThat(server.kind()).as("the wait's parent: the request's server span").hasToString("SERVER");
    assertThat(recorded.spans).as("the client span is the wait's sibling, under the same server span")
        .anySatisfy(s -> {
          assertThat(s.kind()).hasToString("CLIENT");
          assertThat(s.traceId()).isEqualTo(wait.traceId());
          assertThat(s.parentId()).isEqualTo(server.id());
        });
    assertThat(output).as("a start without a WARN").doesNotContain(" WARN ");
  }

  @Test
  void aWaitCancelledByATimeoutEndsAsAnOutcomeBeforeItsParent() {
    // 20 calls in line first: the next one's slot is more than 1 s away, and its endpoint gives up after 50 ms
    CompletableFuture<List<Integer>> queued = Flux.range(0, 20).flatMap(i -> app().get()
        .uri("/pix/{id}", String.format("E12345678202611301200ABCDEG%05d", i)).header("X-Tenant", "acme")
        .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())), 20).collectList().toFuture();
    int before = recorded.waitsStarted.get();
    while (recorded.waitsStarted.get() < before + 20) {
      LockSupport.parkNanos(1_000_000); // until the 20 have booked their slots
    }
    int status;
    double lagMs;
    try (SchedulingLag lag = SchedulingLag.start()) {
      status = app().get().uri("/pix/E12345678202611301200ABCDEFGHIJK?within=PT0.05S")
          .exchangeToMono(r -> r.releaseBody().thenReturn(r.statusCode().value())).block(Duration.ofSeconds(10));
      lagMs = lag.maxMs();
    }
    assertThat(status).isEqualTo(503);
    assertThat(queued.join()).hasSize(20).containsOnly(200);
    MutableSpan cancelled = recorded.spans.stream().filter(s -> "cancelled".equals(s.tag("outcome"))).findFirst()
        .orElseThrow(() -> new AssertionError("no wait span with outcome cancelled"));
    MutableSpan parent = parentOf(cancelled);
    System.out.printf("cancelled wait: %d us, ended %d us before its parent; threads woke up to %.1f ms late%n",
        duration(cancelled), parent.finishTimestamp() - cancelled.finishTimestamp(), lagMs);
    assertThat(cancelled.error()).isNull();
    assertThat(cancelled.tag("error")).isNull();
    // the timeout cancels the wait, then answers: the wait ends first, unless a thread of the cancel woke late on a
    // busy machine (the lag measured meanwhile)
    assertThat(cancelled.finishTimestamp()).as("ends before its parent, within this run's scheduling lag")
        .isLessThanOrEqualTo(parent.finishTimestamp() + (long) (lagMs * 1000));
  }

  private MutableSpan parentOf(MutableSpan span) {
    return recorded.spans.stream().filter(s -> s.id().equals(span.parentId())).findFirst()
        .orElseThrow(() -> new AssertionError("no parent of " + span.name()));
  }

  private static long duration(MutableSpan s) {
    return s.finishTimestamp() - s.startTimestamp();
  }

  private double max(String timer) {
    return meters.find(timer).tag("quota", "pix").timers().stream().mapToDouble(t -> t.max(TimeUnit.SECONDS))
        .max().orElse(0);
  }
}
