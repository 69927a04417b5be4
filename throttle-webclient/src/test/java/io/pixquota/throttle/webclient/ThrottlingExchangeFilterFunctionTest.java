package io.pixquota.throttle.webclient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.Match;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.Unthrottled;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * The adapter alone (this module's class path holds the core and spring-webflux, nothing else of ours): WebClient's
 * requests take their slot on the throttle, and one the throttle refuses never reaches the server, counted there.
 */
class ThrottlingExchangeFilterFunctionTest {
  private final FakeTime time = FakeTime.manual(1_000);
  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void start() throws Exception {
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void aRequestTheThrottleRefusesIsNeverSent() {
    Throttle throttle = ThrottleTesting.builder(new LocalTokenBucket("pix", List.of(Limit.of(2, 0.01)),
        time::nanoTime), time).maxWait(Duration.ZERO).build();
    WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
        .baseUrl(server.url("/").toString()).filter(new ThrottlingExchangeFilterFunction(throttle)).build();
    for (int i = 0; i < 2; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      assertThat(client.get().uri("/api/v2/pix/{id}", "E1").retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(10))).isEqualTo("ok");
    }
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/{id}", "E1").retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10))).hasRootCauseInstanceOf(ThrottleRefusedException.class);
    assertThat(server.getRequestCount()).as("the burst of 2 sent, the third refused before the send").isEqualTo(2);
  }

  @Test
  void aRequestNoQuotaMatchesOrOptedOutGoesOnUntouched() {
    Throttle throttle = ThrottleTesting.onTime(Throttle.builder(), time).maxWait(Duration.ZERO)
        .quota("pix", Match.host(server.getHostName()).path("/api/v2/.*"), new LocalTokenBucket("pix",
            List.of(Limit.of(1, 0.001)), time::nanoTime), 1).build();
    WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
        .baseUrl(server.url("/").toString()).filter(new ThrottlingExchangeFilterFunction(throttle)).build();
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    assertThat(client.get().uri("/api/v2/pix/E1").retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10)))
        .isEqualTo("ok");
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/E2").retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10))).hasRootCauseInstanceOf(ThrottleRefusedException.class);
    for (int i = 0; i < 5; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      assertThat(client.post().uri("/oauth/token").retrieve().bodyToMono(String.class)
          .block(Duration.ofSeconds(10))).isEqualTo("ok");
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      assertThat(client.get().uri("/api/v2/pix/E3").attribute(Unthrottled.ATTRIBUTE, true).retrieve()
          .bodyToMono(String.class).block(Duration.ofSeconds(10))).isEqualTo("ok");
    }
    assertThat(server.getRequestCount()).as("1 of the quota's, 5 unmatched, 5 opted out").isEqualTo(11);
  }

  @Test
  void theSubscribersContextReachesTheFiltersAfterItAndTheExchange() throws Exception {
    Throttle throttle = ThrottleTesting.builder(new LocalTokenBucket("pix", List.of(Limit.of(1, 10)),
        time::nanoTime), time).maxWait(Duration.ofSeconds(5)).build();
    List<String> seen = new CopyOnWriteArrayList<>();
    JdkClientHttpConnector jdk = new JdkClientHttpConnector();
    ClientHttpConnector connector = (method, uri, body) -> Mono.deferContextual(c -> {
      seen.add("exchange " + c.getOrDefault("tenant", "MISSING"));
      return jdk.connect(method, uri, body);
    });
    ExchangeFilterFunction after = (request, next) -> Mono.deferContextual(c -> {
      seen.add("filter " + c.getOrDefault("tenant", "MISSING")); // where WebClient.Builder.filter puts a user's
      return next.exchange(request);
    });
    WebClient client = WebClient.builder().clientConnector(connector).baseUrl(server.url("/").toString())
        .filter(new ThrottlingExchangeFilterFunction(throttle)).filter(after).build();
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    assertThat(client.get().uri("/api/v2/pix/E1").retrieve().bodyToMono(String.class)
        .contextWrite(Context.of("tenant", "acme")).block(Duration.ofSeconds(10))).isEqualTo("ok");
    CompletableFuture<String> waited = client.get().uri("/api/v2/pix/E2").retrieve().bodyToMono(String.class)
        .contextWrite(Context.of("tenant", "acme")).toFuture();
    assertThat(seen).as("the second waits for its slot, 100 ms away").hasSize(2);
    time.advanceMillis(100); // its slot: sent from the throttle's timer
    assertThat(waited.get(10, TimeUnit.SECONDS)).isEqualTo("ok");
    assertThat(seen).containsExactly("filter acme", "exchange acme", "filter acme", "exchange acme");
  }

  /** A request's flow attribute counts against that flow's share (issue 46); one that is not a String is refused. */
  @Test
  void aRequestsFlowAttributeCountsAgainstThatFlowsShare() {
    Throttle throttle = ThrottleTesting.builder(ThrottleTesting.sharedBucket("pix", Limit.of(3, 0.001), time,
        java.util.Map.of("checkout", 1.0, "*", 0.0)), time)
        .maxWait(Duration.ZERO).build();
    WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
        .baseUrl(server.url("/").toString()).filter(new ThrottlingExchangeFilterFunction(throttle)).build();
    String flow = io.pixquota.throttle.Flow.ATTRIBUTE;
    for (int i = 0; i < 3; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    }
    assertThat(client.get().uri("/api/v2/pix/C1").attribute(flow, "checkout").retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10))).isEqualTo("ok");
    assertThat(client.get().uri("/api/v2/pix/E1").retrieve().bodyToMono(String.class).block(Duration.ofSeconds(10)))
        .isEqualTo("ok");
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/E2").retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10))).as("checkout, asking, keeps its call")
        .hasRootCauseInstanceOf(ThrottleRefusedException.class);
    assertThat(client.get().uri("/api/v2/pix/C2").attribute(flow, "checkout").retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10))).isEqualTo("ok");
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/X").attribute(flow, 7).retrieve().bodyToMono(String.class)
        .block(Duration.ofSeconds(10))).hasMessageContaining(flow).hasMessageContaining("must be a String");
    assertThat(server.getRequestCount()).isEqualTo(3);
  }
}
