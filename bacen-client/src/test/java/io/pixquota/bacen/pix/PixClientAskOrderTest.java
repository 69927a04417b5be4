package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.AskMarks;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code PixClient} marks a call as asked when its caller enters it ({@code AskOrder}), before anything that delays it
 * on its way to the bucket: here its token, which the provider takes 300 ms to give. The bucket is given the moment
 * the caller called, so that calls asked at nearly the same time are booked in that order.
 */
class PixClientAskOrderTest {
  private static final String PIX_JSON = "{\"endToEndId\":\"E12345678202611301200ABCDEFGHIJK\",\"txid\":\"t1\","
      + "\"valor\":\"10.50\",\"horario\":\"2026-11-30T12:00:05.000Z\"}";
  private static final long TOKEN_DELAY_MS = 300;
  private final MockWebServer server = new MockWebServer();

  @BeforeEach
  void start() throws Exception {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        if (request.getUrl().encodedPath().equals("/oauth/token")) {
          Thread.sleep(TOKEN_DELAY_MS);
          return json("{\"access_token\":\"t\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
        }
        return json(PIX_JSON);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder().code(200).setHeader("Content-Type", "application/json").body(body).build();
  }

  @Test
  void aBlockingCallIsAskedWhenItEntersTheClientNotWhenItsTokenHasCome() {
    AskMarks bucket = new AskMarks(new LocalTokenBucket("local", List.of(Limit.of(100, 100)), System::nanoTime));
    try (PixClient client = PixClient.builder(PixClientConfig.builder()
        .baseUrl(URI.create(server.url("/api/v2/").toString())).credentials("bank", "s3cr3t")
        .build()).tokenBucket(bucket).build()) {
      long entered = System.nanoTime();
      assertThat(client.getPix("E12345678202611301200ABCDEFGHIJK").endToEndId()).startsWith("E12345678");
      long returned = System.nanoTime();
      assertThat(TimeUnit.NANOSECONDS.toMillis(returned - entered)).as("the token took its time")
          .isGreaterThanOrEqualTo(TOKEN_DELAY_MS);
      assertThat(bucket.asked()).hasSize(1);
      assertThat(TimeUnit.NANOSECONDS.toMillis(bucket.asked().get(0) - entered))
          .as("asked as it entered, not once its token came %d ms later", TOKEN_DELAY_MS)
          .isBetween(0L, TOKEN_DELAY_MS / 3);
    }
  }
}
