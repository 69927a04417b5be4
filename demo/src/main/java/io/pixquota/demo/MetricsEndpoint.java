package io.pixquota.demo;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** {@code GET /metrics} in Prometheus text format, for a replica that Prometheus scrapes. */
final class MetricsEndpoint implements AutoCloseable {
  private final HttpServer server;

  private MetricsEndpoint(HttpServer server) {
    this.server = server;
  }

  static MetricsEndpoint start(int port, PrometheusMeterRegistry registry) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 16);
    server.createContext("/metrics", exchange -> {
      byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return new MetricsEndpoint(server);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
