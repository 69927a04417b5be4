package com.example.pixstatus;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.harness.RefusalBound;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.Limit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive client in the application: Boot's {@code WebClient.Builder}, which the starter's customizer gives the
 * throttle (Boot 3's and Boot 4's), sends a burst of 30 to the mock BACEN at once: 0 x 429 at the mock, and no request
 * sent from a Reactor scheduler's thread (the wait holds none).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE)
class WebClientBurstTest {
  private static final TestProvider PROVIDER = TestProvider.start();

  @Autowired
  private WebClient.Builder builder;

  @Autowired
  private MeterRegistry meters;

  @Autowired
  private Throttle throttle;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) {
    PROVIDER.register(registry, "webclient-" + System.nanoTime() + ":");
  }

  @AfterAll
  static void stop() {
    PROVIDER.close();
  }

  @Test
  void aBurstOf30ThroughBootsWebClientIsServedWithin0x429() {
    String basic = Base64.getEncoder().encodeToString("demo:demo-secret".getBytes(StandardCharsets.UTF_8));
    Map<?, ?> token = WebClient.create(PROVIDER.mock.url().toString()).post().uri("/oauth/token")
        .header("Authorization", "Basic " + basic).header("Content-Type", "application/x-www-form-urlencoded")
        .bodyValue("grant_type=client_credentials").retrieve().bodyToMono(Map.class).block(Duration.ofSeconds(10));
    Set<String> sentOn = ConcurrentHashMap.newKeySet();
    WebClient pix = builder.clone().baseUrl(PROVIDER.mock.url().toString())
        .defaultHeader("Authorization", "Bearer " + token.get("access_token"))
        .filter((request, next) -> {
          sentOn.add(Thread.currentThread().getName());
          return next.exchange(request);
        }).build();
    long before = ((Number) PROVIDER.mock.stats("demo", false).getOrDefault("accepted", 0L)).longValue();
    List<Integer> statuses = Flux.range(0, 30).subscribeOn(Schedulers.parallel())
        .flatMap(i -> pix.get().uri("/api/v2/pix/{id}", String.format("E12345678202611301200ABCDEF%05d", i))
            .exchangeToMono(r -> Mono.just(r.statusCode().value())), 30)
        .collectList().block(Duration.ofSeconds(30));
    Map<String, Object> stats = PROVIDER.mock.stats("demo", false);
    // "0 x 429" holds while calls reach the provider within the plan's J of their slots: the meters say how far they
    // did in this run, and the 429s such a jitter allows follow from the plan and the mock's 10 + 10/s
    double jitterSeconds = meters.find("bacen.throttle.lateness").timers().stream()
        .mapToDouble(t -> t.max(TimeUnit.SECONDS)).max().orElse(0) + meters.find("bacen.throttle.answer").timers()
        .stream().mapToDouble(t -> t.max(TimeUnit.SECONDS)).max().orElse(0);
    Limit limit = throttle.buckets().get(0).limits().get(0); // the quota pix's
    long allowed = RefusalBound.allowed(10, 10, limit.capacity(), limit.refillPerSecond(), jitterSeconds);
    System.out.printf("WebClient burst of 30: within %.1f ms of their slots; %s allows %d x 429; the mock refused %s%n",
        jitterSeconds * 1000, limit, allowed, stats.get("refused"));
    assertThat(((Number) stats.get("refused")).longValue()).as("the mock's audit: %s", stats)
        .isLessThanOrEqualTo(allowed);
    assertThat(statuses).as("a 429 is retried through the bucket").hasSize(30).containsOnly(200);
    assertThat(((Number) stats.get("accepted")).longValue() - before).isEqualTo(30);
    assertThat(sentOn).as("sent when the slot came, from the throttle's threads").isNotEmpty()
        .noneMatch(t -> t.startsWith("parallel-") || t.startsWith("boundedElastic-"));
  }
}
