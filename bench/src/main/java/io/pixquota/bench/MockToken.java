package io.pixquota.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** A bearer token from the mock's {@code /oauth/token}, fetched with the JDK's client (no other client warmed). */
final class MockToken {
  private static final ObjectMapper JSON = new ObjectMapper();

  private MockToken() {}

  static String fetch(HttpClient jdk, URI bacenUrl, String clientId, String clientSecret)
      throws IOException, InterruptedException {
    String basic = Base64.getEncoder().encodeToString((clientId + ":" + clientSecret)
        .getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> response = jdk.send(HttpRequest.newBuilder(bacenUrl.resolve("/oauth/token"))
        .header("Authorization", "Basic " + basic).header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("token endpoint answered " + response.statusCode());
    }
    return JSON.readTree(response.body()).get("access_token").asText();
  }
}
