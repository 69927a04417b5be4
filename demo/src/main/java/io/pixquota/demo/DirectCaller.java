package io.pixquota.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import okhttp3.Credentials;
import okhttp3.FormBody;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/** The replica without the SDK: one OAuth2 token, then every query straight at the provider. */
final class DirectCaller implements Burst.Caller {
  private final OkHttpClient http;
  private final URI pixUrl;
  private final String token;

  /** {@code bacenUrl}: the provider's root, for its token; {@code pixUrl}: where API Pix is served. */
  DirectCaller(OkHttpClient http, URI bacenUrl, URI pixUrl, String clientId, String clientSecret) throws IOException {
    this.http = http;
    this.pixUrl = pixUrl;
    Request request = new Request.Builder().url(bacenUrl.resolve("/oauth/token").toString())
        .header("Authorization", Credentials.basic(clientId, clientSecret))
        .post(new FormBody.Builder().add("grant_type", "client_credentials").build()).build();
    try (Response response = http.newCall(request).execute()) {
      if (!response.isSuccessful()) {
        throw new IOException("token endpoint answered " + response.code());
      }
      this.token = new ObjectMapper().readTree(response.body().string()).get("access_token").asText();
    }
  }

  @Override
  public int call(String endToEndId) throws IOException {
    Request request = new Request.Builder().url(pixUrl.resolve("pix/" + endToEndId).toString())
        .header("Authorization", "Bearer " + token).build();
    try (Response response = http.newCall(request).execute()) {
      return response.code();
    }
  }
}
