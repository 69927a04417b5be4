package io.pixquota.mock;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A plain JDK HTTP client for the mock's tests: the mock is tested without our SDK. */
final class Http {
  static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;

  Http(URI base) {
    this.base = base;
  }

  HttpResponse<String> token(String id, String secret) {
    String basic = Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
    return send(HttpRequest.newBuilder(base.resolve("/oauth/token"))
        .header("Authorization", "Basic " + basic)
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build());
  }

  String bearer(String id, String secret) {
    HttpResponse<String> r = token(id, secret);
    if (r.statusCode() != 200) {
      throw new IllegalStateException("token request failed: " + r.statusCode());
    }
    return json(r).get("access_token").asText();
  }

  HttpResponse<String> get(String path, String bearer) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).GET();
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    return send(b.build());
  }

  HttpResponse<String> post(String path) {
    return send(HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.noBody()).build());
  }

  HttpResponse<String> send(HttpRequest request) {
    try {
      return client.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static JsonNode json(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
