package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * The judge's cap on calls in flight: with {@code maxInFlight 2} and every answer taking 400 ms, of 5 requests sent at
 * once 2 are served and 3 refused with 429 at once; the audit keeps the most seen in flight.
 */
class MockInFlightTest {
  @Test
  void theRequestOverTheCapIsRefusedAndTheMostInFlightIsAudited() throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().policy(QuotaPolicy.bucket(1000, 1000, 1000))
        .latency(400, 0).maxInFlight(2).build())) {
      Http http = new Http(mock.url());
      String bearer = http.bearer("demo", "demo-secret");
      List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
      ExecutorService five = Executors.newFixedThreadPool(5);
      for (int i = 0; i < 5; i++) {
        calls.add(CompletableFuture.supplyAsync(() -> http.get("/api/v2/pix/E12345678202611301200ABCDEFGHIJK",
            bearer), five));
      }
      five.shutdown();
      int served = 0;
      int refused = 0;
      for (CompletableFuture<HttpResponse<String>> c : calls) {
        HttpResponse<String> r = c.get();
        if (r.statusCode() == 200) {
          served++;
        } else {
          assertThat(r.statusCode()).isEqualTo(429);
          assertThat(r.body()).contains("more than 2 requests in flight");
          refused++;
        }
      }
      assertThat(served).isEqualTo(2);
      assertThat(refused).isEqualTo(3);
      assertThat(mock.inFlightStats("demo")).isEqualTo(Map.of("max", 2, "mostSeen", 2, "refused", 3, "now", 0));
    }
  }
}
