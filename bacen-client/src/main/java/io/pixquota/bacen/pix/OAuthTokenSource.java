package io.pixquota.bacen.pix;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.support.Checks;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import okhttp3.Call;
import okhttp3.Callback;
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
 *
 * <p>Nobody waits longer than they said: the fetch runs on OkHttp's dispatcher, bounded by the HTTP client's own call
 * timeout, and each caller waits for it at most its {@code maxWait}, interruptibly. A lifetime outside
 * [1 s, {@value #MAX_LIFETIME_SECONDS} s] is clamped into it; none or a non-positive one counts as 300 s.
 */
final class OAuthTokenSource {
  /** A token is refreshed at least daily, whatever lifetime the endpoint claims: {@value} s. */
  static final long MAX_LIFETIME_SECONDS = 86_400;
  /** What an endpoint that says nothing about the lifetime gets: {@value} s. */
  static final long DEFAULT_LIFETIME_SECONDS = 300;
  /** RFC 6750's b64token: what can stand in an Authorization header after "Bearer ". */
  private static final Pattern BEARER = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");

  /** Thrown when the token endpoint refuses the credentials or answers something unusable. */
  public static final class TokenException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;

    TokenException(String message, int status) {
      super(message);
      this.status = status;
    }

    /** The endpoint's HTTP status; 200 when it answered but the token was unusable. */
    public int status() {
      return status;
    }
  }

  /** A bearer token and when to fetch the next one. */
  record Token(String value, long refreshAtNanos) {}

  private final OkHttpClient http;
  private final HttpUrl tokenUrl;
  private final String basicAuth;
  private final ObjectMapper json;
  private final LongSupplier nanoClock;
  private final Object lock = new Object();
  private volatile Token token;
  private CompletableFuture<Token> inFlight; // guarded by lock

  /**
   * @param http the client for token requests; its call timeout bounds every fetch
   */
  public OAuthTokenSource(OkHttpClient http, HttpUrl tokenUrl, String clientId, String clientSecret,
      ObjectMapper json, LongSupplier nanoClock) {
    this.http = http;
    this.tokenUrl = tokenUrl;
    this.basicAuth = Credentials.basic(clientId, clientSecret, StandardCharsets.UTF_8); // RFC 7617 charset=UTF-8
    this.json = json;
    this.nanoClock = nanoClock;
  }

  /**
   * A valid bearer token, fetched if the cached one is missing or due for refresh.
   *
   * @param maxWait the longest this caller waits for a fetch, its own or another caller's
   * @throws InterruptedIOException when the wait ends first, or the thread is interrupted (its flag stays set)
   * @throws TokenException         when the endpoint refuses or answers something unusable
   */
  public String get(Duration maxWait) throws IOException {
    Token t = token;
    if (fresh(t)) {
      return t.value();
    }
    CompletableFuture<Token> fetch = fetchOrJoin();
    try {
      return fetch.get(Checks.saturatedMicros(maxWait), TimeUnit.MICROSECONDS).value();
    } catch (TimeoutException e) {
      throw noTokenWithin(maxWait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the token");
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException("token fetch failed", e.getCause());
    }
  }

  /**
   * {@link #get} without blocking: completes at once with a fresh token, else when the fetch in flight (this
   * caller's or another's) ends, on OkHttp's dispatcher thread; exceptionally with the same exceptions, the ends of
   * waits included.
   */
  public CompletableFuture<String> getAsync(Duration maxWait) {
    Token t = token;
    if (fresh(t)) {
      return CompletableFuture.completedFuture(t.value());
    }
    CompletableFuture<String> value = new CompletableFuture<>();
    fetchOrJoin().whenComplete((fetched, failure) -> {
      if (failure == null) {
        value.complete(fetched.value());
      } else {
        Throwable cause = Async.cause(failure);
        value.completeExceptionally(cause instanceof IOException ? cause
            : new IOException("token fetch failed", cause));
      }
    });
    return value.orTimeout(Checks.saturatedMicros(maxWait), TimeUnit.MICROSECONDS).exceptionallyCompose(failure ->
        CompletableFuture.failedFuture(Async.cause(failure) instanceof TimeoutException ? noTokenWithin(maxWait)
            : Async.cause(failure)));
  }

  private static InterruptedIOException noTokenWithin(Duration maxWait) {
    return new InterruptedIOException("no token within " + maxWait.toMillis() + " ms (the fetch goes on)");
  }

  /** The fresh token as a done future, the fetch in flight, or a new fetch. */
  private CompletableFuture<Token> fetchOrJoin() {
    synchronized (lock) {
      Token t = token;
      if (fresh(t)) {
        return CompletableFuture.completedFuture(t); // another caller fetched it meanwhile
      }
      if (inFlight == null) {
        inFlight = fetch();
      }
      return inFlight;
    }
  }

  /** Forgets {@code rejected} (a 401 said it is no longer valid) so that the next {@link #get} fetches anew. */
  public void invalidate(String rejected) {
    synchronized (lock) {
      Token t = token;
      if (t != null && t.value().equals(rejected)) {
        token = null;
      }
    }
  }

  private boolean fresh(Token t) {
    return t != null && nanoClock.getAsLong() - t.refreshAtNanos() < 0;
  }

  /** Starts one fetch; whatever its outcome, the next caller after it may start another. */
  private CompletableFuture<Token> fetch() {
    CompletableFuture<Token> result = new CompletableFuture<>();
    Request request = new Request.Builder().url(tokenUrl).header("Authorization", basicAuth)
        .post(new FormBody.Builder().add("grant_type", "client_credentials").build()).build();
    long sentAt = nanoClock.getAsLong();
    http.newCall(request).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        done(result, null, e);
      }

      @Override
      public void onResponse(Call call, Response response) {
        try (response) {
          done(result, read(response, sentAt), null);
        } catch (IOException e) {
          done(result, null, e);
        }
      }
    });
    return result;
  }

  private void done(CompletableFuture<Token> result, Token fetched, IOException failure) {
    synchronized (lock) {
      if (fetched != null) {
        token = fetched;
      }
      inFlight = null;
    }
    if (failure != null) {
      result.completeExceptionally(failure);
    } else {
      result.complete(fetched);
    }
  }

  private Token read(Response response, long sentAt) throws IOException {
    ResponseBody body = response.body();
    return parse(response.code(), response.isSuccessful() ? body.bytes() : new byte[0], json, sentAt);
  }

  /** The token endpoint's answer, whatever the HTTP client: the token, or why there is none. */
  static Token parse(int code, byte[] body, ObjectMapper json, long sentAt) throws TokenException {
    if (code < 200 || code > 299) {
      throw new TokenException("token endpoint answered " + code, code);
    }
    JsonNode node;
    try {
      node = json.readTree(body);
    } catch (IOException e) {
      throw new TokenException("token endpoint answered unreadable JSON", code);
    }
    JsonNode access = node == null ? null : node.get("access_token");
    if (access == null || !access.isTextual() || access.asText().isBlank()) {
      throw new TokenException("token endpoint answered no access_token", code);
    }
    if (!BEARER.matcher(access.asText()).matches()) {
      throw new TokenException("token endpoint answered an access_token with characters a bearer token cannot "
          + "have", code);
    }
    long lifetime = TimeUnit.SECONDS.toNanos(lifetimeSeconds(node.path("expires_in")));
    long refreshAfter = Math.min(lifetime * 9 / 10, Math.max(0, lifetime - TimeUnit.SECONDS.toNanos(5)));
    return new Token(access.asText(), sentAt + refreshAfter);
  }

  /** {@code expires_in}, clamped to [1 s, 1 day]; missing, non-numeric or non-positive: 300 s. */
  static long lifetimeSeconds(JsonNode expiresIn) {
    if (!expiresIn.isNumber() && !expiresIn.isTextual()) {
      return DEFAULT_LIFETIME_SECONDS;
    }
    double seconds = expiresIn.asDouble(0);
    if (!(seconds > 0)) {
      return DEFAULT_LIFETIME_SECONDS;
    }
    return (long) Math.max(1, Math.min(MAX_LIFETIME_SECONDS, Math.ceil(seconds)));
  }
}
