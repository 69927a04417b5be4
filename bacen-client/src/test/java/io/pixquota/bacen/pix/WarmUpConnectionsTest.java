package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PixClient.Builder#warmUpConnections}: warmUp opens that many connections to the provider at once, and the
 * first burst's calls find them open instead of each opening its own (counted by the server, by connection).
 */
class WarmUpConnectionsTest {
  private static final String E2E = "E12345678202611301200ABCDEFGHIJK";
  private static final String PIX_JSON = "{\"endToEndId\":\"" + E2E + "\",\"txid\":\"abcdefghijklmnopqrstuvwxyz1\","
      + "\"valor\":\"10.00\",\"horario\":\"2026-11-30T12:00:00Z\"}";
  private final MockWebServer server = new MockWebServer();
  private final Set<Integer> connections = ConcurrentHashMap.newKeySet();
  private final AtomicInteger policyCalls = new AtomicInteger();
  private final Set<Integer> pixConnections = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void start() throws Exception {
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        connections.add(request.getConnectionIndex());
        String path = request.getUrl().encodedPath();
        if (path.equals("/oauth/token")) {
          return json(200, "{\"access_token\":\"t\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
        }
        if (path.startsWith("/api/v2/policies/")) { // a provider that does not serve its policy
          policyCalls.incrementAndGet();
          return json(404, "{\"type\":\"https://pix.bcb.gov.br/api/v2/error/NaoEncontrado\",\"title\":\"t\","
              + "\"status\":404}");
        }
        pixConnections.add(request.getConnectionIndex());
        return json(200, PIX_JSON);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static MockResponse json(int code, String body) {
    return new MockResponse.Builder().code(code).setHeader("Content-Type", "application/json").body(body).build();
  }

  private PixClient client(int warmUpConnections) {
    return PixClient.builder(PixClientConfig.builder().baseUrl(URI.create(server.url("/api/v2/").toString()))
        .credentials("bank", "s3cr3t").build())
        .tokenBucket(new LocalTokenBucket("local", List.of(Limit.of(8, 1)), System::nanoTime))
        .warmUpConnections(warmUpConnections).build();
  }

  @Test
  void warmUpOpensThatManyConnectionsAtOnceAndTheBurstFindsThemOpen() throws Exception {
    try (PixClient pix = client(6)) {
      pix.warmUp();
      assertThat(policyCalls.get()).as("one GET /policies/pix a connection, answered 404").isEqualTo(6);
      assertThat(connections).as("the token's connection and six at once (the answers held until all came)")
          .hasSizeBetween(6, 7);
      Set<Integer> opened = Set.copyOf(connections);
      List<Thread> burst = new java.util.ArrayList<>();
      for (int i = 0; i < 6; i++) {
        Thread t = new Thread(() -> pix.getPix(E2E));
        t.start();
        burst.add(t);
      }
      for (Thread t : burst) {
        t.join();
      }
      assertThat(pixConnections).as("the burst's six calls, granted at once, on the connections warmUp opened")
          .isSubsetOf(opened);
    }
  }

  @Test
  void withoutWarmUpConnectionsWarmUpSendsNothingToTheApi() {
    try (PixClient pix = client(0)) {
      pix.warmUp();
      assertThat(policyCalls.get()).as("the default: a provider may count such requests").isZero();
    }
  }

  @Test
  void warmUpConnectionsOutsideItsRangeIsRefusedNamingTheValue() {
    PixClient.Builder builder = PixClient.builder(PixClientConfig.builder()
        .baseUrl(URI.create("http://127.0.0.1:9/api/v2/")).credentials("bank", "s3cr3t").build());
    assertThatThrownBy(() -> builder.warmUpConnections(-1)).isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("warmUpConnections must be within 0..1000, but was -1");
    assertThatThrownBy(() -> builder.warmUpConnections(1001)).isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("warmUpConnections must be within 0..1000, but was 1001");
  }
}
