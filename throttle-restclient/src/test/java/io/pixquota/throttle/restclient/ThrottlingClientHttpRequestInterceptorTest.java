package io.pixquota.throttle.restclient;

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
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * The adapter alone (this module's class path holds the core and spring-web, nothing else of ours): RestClient's
 * calls take their slot on the throttle, and a call the throttle refuses never reaches the server, counted there.
 */
class ThrottlingClientHttpRequestInterceptorTest {
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
  void aCallTheThrottleRefusesIsNeverSent() {
    Throttle throttle = ThrottleTesting.builder(new LocalTokenBucket("pix", List.of(Limit.of(2, 0.01)),
        time::nanoTime), time).maxWait(Duration.ZERO).build();
    RestClient client = RestClient.builder().baseUrl(server.url("/").toString())
        .requestInterceptor(new ThrottlingClientHttpRequestInterceptor(throttle)).build();
    for (int i = 0; i < 2; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      assertThat(client.get().uri("/api/v2/pix/{id}", "E1").retrieve().body(String.class)).isEqualTo("ok");
    }
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/{id}", "E1").retrieve().body(String.class))
        .isInstanceOf(ResourceAccessException.class).hasCauseInstanceOf(ThrottleRefusedException.class);
    assertThat(server.getRequestCount()).as("the burst of 2 sent, the third refused before the send").isEqualTo(2);
  }

  @Test
  void aRequestNoQuotaMatchesOrOptedOutIsExecutedUntouched() {
    Throttle throttle = ThrottleTesting.onTime(Throttle.builder(), time).maxWait(Duration.ZERO)
        .quota("pix", Match.host(server.getHostName()).path("/api/v2/.*"), new LocalTokenBucket("pix",
            List.of(Limit.of(1, 0.001)), time::nanoTime), 1).build();
    RestClient client = RestClient.builder().baseUrl(server.url("/").toString())
        .requestInterceptor(new ThrottlingClientHttpRequestInterceptor(throttle)).build();
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    assertThat(client.get().uri("/api/v2/pix/E1").retrieve().body(String.class)).isEqualTo("ok");
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/E2").retrieve().body(String.class))
        .hasCauseInstanceOf(ThrottleRefusedException.class);
    for (int i = 0; i < 5; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      assertThat(client.post().uri("/oauth/token").retrieve().body(String.class)).isEqualTo("ok");
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
      assertThat(client.get().uri("/api/v2/pix/E3").attribute(Unthrottled.ATTRIBUTE, true).retrieve()
          .body(String.class)).isEqualTo("ok");
    }
    assertThat(server.getRequestCount()).as("1 of the quota's, 5 unmatched, 5 opted out").isEqualTo(11);
  }

  /**
   * A request's flow of its own (the attribute {@link io.pixquota.throttle.Flow#ATTRIBUTE}) counts against that flow's
   * share of its quota (issue 46): checkout keeps its call while the others' are refused; a flow that is not a String
   * is refused naming the attribute, before the send.
   */
  @Test
  void aRequestsFlowAttributeCountsAgainstThatFlowsShare() {
    Throttle throttle = ThrottleTesting.builder(ThrottleTesting.sharedBucket("pix", Limit.of(3, 0.001), time,
        java.util.Map.of("checkout", 1.0, "*", 0.0)), time)
        .maxWait(Duration.ZERO).build();
    RestClient client = RestClient.builder().baseUrl(server.url("/").toString())
        .requestInterceptor(new ThrottlingClientHttpRequestInterceptor(throttle)).build();
    String flow = io.pixquota.throttle.Flow.ATTRIBUTE;
    for (int i = 0; i < 3; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    }
    assertThat(client.get().uri("/api/v2/pix/C1").attribute(flow, "checkout").retrieve().body(String.class))
        .isEqualTo("ok");
    assertThat(client.get().uri("/api/v2/pix/E1").retrieve().body(String.class)).as("the flows not named: their own")
        .isEqualTo("ok");
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/E2").retrieve().body(String.class))
        .as("nothing left of theirs, and checkout, asking, keeps its call").isInstanceOf(ResourceAccessException.class)
        .hasCauseInstanceOf(ThrottleRefusedException.class);
    assertThat(client.get().uri("/api/v2/pix/C2").attribute(flow, "checkout").retrieve().body(String.class))
        .as("checkout's kept call").isEqualTo("ok");
    assertThatThrownBy(() -> client.get().uri("/api/v2/pix/X").attribute(flow, 7).retrieve().body(String.class))
        .hasMessageContaining(flow).hasMessageContaining("must be a String");
    assertThat(server.getRequestCount()).isEqualTo(3);
  }
}
