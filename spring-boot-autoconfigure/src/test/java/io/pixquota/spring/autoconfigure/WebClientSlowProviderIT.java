package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.mock.QuotaPolicy;
import io.pixquota.throttle.webclient.ThrottlingExchangeFilterFunction;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The WebClient filter against a provider slower than the client's {@code .timeout()}: a request cancelled after its
 * send keeps its permit while the provider works on it, so the judge (the mock, which counts a request in flight from
 * its arrival until its answer starts to leave) never sees a seventh. Real time, scaled down: answers in 1.5 s,
 * requests that give up after 0.5 s.
 */
@ExtendWith(RedisExtension.class)
class WebClientSlowProviderIT {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  @Test
  void aRequestThatTimesOutAfterItsSendKeepsItsPermitWhileTheProviderWorksOnIt(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().latency(1500, 0).maxInFlight(6)
        .policy(QuotaPolicy.bucket(100_000, 100_000, 1000)).build())) {
      WebClientTesting.runner(redis, "wc-slow", "pixquota.bucket.capacity=1000", "pixquota.bucket.rate=1000",
          "pixquota.max-in-flight=6", "pixquota.max-wait=300ms", "pixquota.provider-timeout=2s").run(context -> {
            WebClient pix = WebClient.builder().clientConnector(new JdkClientHttpConnector())
                .baseUrl(mock.url().toString()).filter(context.getBean(ThrottlingExchangeFilterFunction.class))
                .defaultHeader("Authorization", "Bearer " + WebClientTesting.bearer(mock)).build();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            AtomicInteger mostAbandoned = new AtomicInteger();
            AtomicInteger timedOut = new AtomicInteger();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            Flux.range(0, 12).flatMap(caller -> Flux.range(0, Integer.MAX_VALUE)
                .takeWhile(i -> System.nanoTime() < until)
                .concatMap(i -> pix.get().uri("/api/v2/pix/{id}", E2E).retrieve().toBodilessEntity()
                    .timeout(Duration.ofMillis(500)).map(r -> r.getStatusCode().value())
                    .onErrorResume(TimeoutException.class, e -> {
                      timedOut.incrementAndGet();
                      return Mono.just(0);
                    })
                    .onErrorResume(e -> Mono.just(-1)) // refused for want of a permit within the max wait
                    .doOnNext(x -> mostAbandoned.accumulateAndGet((int) registry.get("bacen.throttle.pool.abandoned")
                        .gauge().value(), Math::max))), 12).blockLast(Duration.ofSeconds(30));
            assertThat(timedOut.get()).as("requests cancelled after their send").isPositive();
            assertThat(mostAbandoned.get()).as("their permits held").isPositive();
            assertThat(mock.inFlightStats("demo")).as("the judge: never a seventh in flight, none refused")
                .containsEntry("mostSeen", 6).containsEntry("refused", 0);
          });
    }
  }
}
