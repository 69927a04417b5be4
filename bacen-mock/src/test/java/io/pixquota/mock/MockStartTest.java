package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The mock's start as a client meets it: a client that calls as soon as the port accepts a connection (a replica
 * started next to it, a docker-compose service) finds the whole quota, never calls the mock made to warm itself up.
 */
class MockStartTest {

  @Test
  void aClientThatCallsAsSoonAsThePortOpensFindsTheWholeQuota() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    MockConfig config = MockConfig.builder().port(port).build();
    CompletableFuture<MockBacen> starting = CompletableFuture.supplyAsync(() -> {
      try {
        return MockBacen.start(config);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!accepts(port)) {
      assertThat(System.nanoTime()).as("the port opened within 30 s").isLessThan(deadline);
      Thread.sleep(1);
    }
    Http http = new Http(URI.create("http://127.0.0.1:" + port));
    String bearer = http.bearer("demo", "demo-secret");
    List<Integer> statuses = new ArrayList<>();
    List<String> remaining = new ArrayList<>();
    for (int i = 0; i < 5; i++) { // half the burst of 10, back to back: none may be refused
      HttpResponse<String> r = http.get("/api/v2/pix/E12345678202611301200ABCDEF0000" + i, bearer);
      statuses.add(r.statusCode());
      remaining.add(r.headers().firstValue("RateLimit").orElse(""));
    }
    try (MockBacen mock = starting.get(30, TimeUnit.SECONDS)) {
      assertThat(statuses).as("RateLimit headers seen: %s", remaining).containsOnly(200);
      assertThat(remaining.get(0)).as("the first call found the burst of 10 whole").contains("r=9");
      assertThat(mock.stats("demo", false).get("accepted")).isEqualTo(5L);
    }
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 100);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
