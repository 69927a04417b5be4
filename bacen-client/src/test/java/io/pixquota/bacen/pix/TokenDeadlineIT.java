package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.Test;

/**
 * Real time, since OkHttp's own timeouts are what is tested: a token endpoint that drips its answer, or never
 * answers, holds a call no longer than its call timeout (once 21 s and 20 s with a call timeout of 2 s).
 */
class TokenDeadlineIT {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";

  private static long secondsToFail(MockResponse tokenAnswer) throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.enqueue(tokenAnswer);
      server.start();
      try (PixClient client = PixClient.builder(PixClientConfig.builder()
          .baseUrl(URI.create(server.url("/api/v2/").toString())).credentials("bank", "s3cr3t")
          .callTimeout(Duration.ofSeconds(2)).maxWait(Duration.ofSeconds(1))
          .retry(1, Duration.ofMillis(1), Duration.ofMillis(1), Duration.ofSeconds(1)).build())
          .tokenBucket(new LocalTokenBucket("local", List.of(Limit.of(10, 10)), System::nanoTime)).build()) {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> client.getPix(E2E)).isInstanceOf(PixTransportException.class)
            .hasMessageContaining("token request failed");
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
      }
    }
  }

  @Test
  void aTokenEndpointThatDripsOneBytePer500MsIsCutAtTheCallTimeout() throws Exception {
    long seconds = secondsToFail(new MockResponse.Builder().code(200).setHeader("Content-Type", "application/json")
        .body("{\"access_token\":\"abcdefghijklmnopqrstuvwxyz\",\"expires_in\":3600}")
        .throttleBody(1, 500, TimeUnit.MILLISECONDS).build());
    assertThat(seconds).as("seconds held, with a 2 s call timeout").isBetween(1L, 3L);
  }

  @Test
  void aTokenEndpointThatNeverAnswersIsCutAtTheCallTimeout() throws Exception {
    long seconds = secondsToFail(new MockResponse.Builder().onRequestStart(SocketEffect.Stall.INSTANCE).build());
    assertThat(seconds).as("seconds held, with a 2 s call timeout").isBetween(1L, 3L);
  }
}
