package io.pixquota.mock;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;

/** A mock's first requests, sent to itself: a token and thirty Pix queries, so that its code paths are warm. */
final class SelfWarmUp {
  private SelfWarmUp() {}

  /**
   * @return the bearer token it used, for the mock to forget
   */
  static String run(URI url, String pixPrefix, Map.Entry<String, String> integrator)
      throws IOException, InterruptedException {
    HttpClient client = HttpClient.newHttpClient();
    String basic = Base64.getEncoder().encodeToString((integrator.getKey() + ":" + integrator.getValue())
        .getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> token = client.send(HttpRequest.newBuilder(url.resolve("/oauth/token"))
        .header("Authorization", "Basic " + basic)
        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials")).build(),
        HttpResponse.BodyHandlers.ofString());
    String bearer = Answers.JSON.readTree(token.body()).get("access_token").asText();
    for (int i = 0; i < 30; i++) {
      client.send(HttpRequest.newBuilder(url.resolve(pixPrefix + "/pix/E00000000202601010000WARMUP" + (10_000 + i)))
          .header("Authorization", "Bearer " + bearer).build(), HttpResponse.BodyHandlers.discarding());
    }
    return bearer;
  }
}
