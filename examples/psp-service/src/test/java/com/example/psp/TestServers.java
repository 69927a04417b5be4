package com.example.psp;

import com.sun.net.httpserver.HttpServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/** The servers the service's test calls: mock providers, and a partner's status page. */
final class TestServers {
  private TestServers() {}

  static MockBacen mock(MockConfig config) {
    try {
      return MockBacen.start(config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Partner partner(String address) {
    try {
      return new Partner(address);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code GET /status} answers {@code up}, counting its requests. */
  static final class Partner implements AutoCloseable {
    private final HttpServer server;
    private final AtomicLong requests = new AtomicLong();

    private Partner(String address) throws IOException {
      server = HttpServer.create(new InetSocketAddress(address, 0), 64);
      server.createContext("/status", exchange -> {
        requests.incrementAndGet();
        byte[] body = "up".getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "text/plain");
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      });
      server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
      server.start();
    }

    String url() {
      return "http://" + server.getAddress().getHostString() + ":" + server.getAddress().getPort() + "/";
    }

    long requests() {
      return requests.get();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }
}
