package io.pixquota.bacen.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import okhttp3.Credentials;
import okhttp3.FormBody;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * OAuth2 client credentials: fetches a bearer token, caches it and fetches a new one before it expires (after 90% of
 * its lifetime, and at least 5 s before the end). One fetch at a time: concurrent callers wait for the one in flight.
 */
public final class OAuthTokenSource {
  /** Thrown when the token endpoint refuses the credentials or answers something unusable. */
  public static final class TokenException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;

    TokenException(String message, int status) {
      super(message);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  private record Token(String value, long refreshAtNanos) {}

  private final OkHttpClient http;
  private final HttpUrl tokenUrl;
  private final String basicAuth;
  private final ObjectMapper json;
  private final LongSupplier nanoClock;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile Token token;

  public OAuthTokenSource(OkHttpClient http, HttpUrl tokenUrl, String clientId, String clientSecret,
      ObjectMapper json, LongSupplier nanoClock) {
    this.http = http;
    this.tokenUrl = tokenUrl;
    this.basicAuth = Credentials.basic(clientId, clientSecret);
    this.json = json;
    this.nanoClock = nanoClock;
  }

  /** A valid bearer token, fetched if the cached one is missing or due for refresh. */
  public String get() throws IOException {
    Token t = token;
    if (t != null && nanoClock.getAsLong() - t.refreshAtNanos() < 0) {
      return t.value();
    }
    lock.lock();
    try {
      t = token;
      if (t != null && nanoClock.getAsLong() - t.refreshAtNanos() < 0) {
        return t.value(); // another thread fetched it while we waited
      }
      t = fetch();
      token = t;
      return t.value();
    } finally {
      lock.unlock();
    }
  }

  /** Forgets {@code rejected} (a 401 said it is no longer valid) so that the next {@link #get()} fetches anew. */
  public void invalidate(String rejected) {
    Token t = token;
    if (t != null && t.value().equals(rejected)) {
      token = null;
    }
  }

  private Token fetch() throws IOException {
    Request request = new Request.Builder().url(tokenUrl).header("Authorization", basicAuth)
        .post(new FormBody.Builder().add("grant_type", "client_credentials").build()).build();
    long sentAt = nanoClock.getAsLong();
    try (Response response = http.newCall(request).execute()) {
      ResponseBody body = response.body();
      if (!response.isSuccessful()) {
        throw new TokenException("token endpoint answered " + response.code(), response.code());
      }
      JsonNode node;
      try {
        node = json.readTree(body.byteStream());
      } catch (IOException e) {
        throw new TokenException("token endpoint answered unreadable JSON", response.code());
      }
      JsonNode access = node == null ? null : node.get("access_token");
      if (access == null || !access.isTextual() || access.asText().isBlank()) {
        throw new TokenException("token endpoint answered no access_token", response.code());
      }
      long lifetimeSeconds = node.path("expires_in").asLong(300);
      if (lifetimeSeconds <= 0) {
        lifetimeSeconds = 300;
      }
      long lifetime = Duration.ofSeconds(lifetimeSeconds).toNanos();
      long refreshAfter = Math.min(lifetime * 9 / 10, Math.max(0, lifetime - Duration.ofSeconds(5).toNanos()));
      return new Token(access.asText(), sentAt + refreshAfter);
    }
  }
}
