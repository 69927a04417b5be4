package io.pixquota.bacen.pix;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.throttle.BucketUnavailableException;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleException;
import io.pixquota.throttle.support.Async;
import io.pixquota.throttle.okhttp.ThrottledCallFactory;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of an API call, blocking or async: a bearer token within the call timeout, the request through the
 * throttle, one fresh token after a 401, the answer read into a result or a {@link PixException}. Retries are
 * {@link PixRetry}'s; the wiring and the operations are {@link PixClient}'s.
 */
final class PixAttempts {
  private static final Logger LOG = LoggerFactory.getLogger(PixAttempts.class);
  private final HttpUrl apiBase;
  private final ThrottledCallFactory calls;
  private final OAuthTokenSource tokens;
  private final PixResponses responses;
  private final Duration callTimeout;
  private final AnswerCounters answers;
  private final AtomicReference<String> undersized; // why the caller's dispatcher is too small, until logged

  /**
   * @param http a client with the throttle as a network interceptor; its {@link ThrottledCallFactory} makes every
   *             call, blocking and async, so that a call waits for its slot before it takes a connection
   * @param undersized why the caller's OkHttp dispatcher runs too few calls at once (WARN at the first call), or null
   */
  PixAttempts(HttpUrl apiBase, OkHttpClient http, OAuthTokenSource tokens, PixResponses responses,
      Duration callTimeout, MeterRegistry registry, String undersized) {
    this.undersized = new AtomicReference<>(undersized);
    this.answers = new AnswerCounters(registry);
    this.apiBase = apiBase;
    this.calls = ThrottledCallFactory.of(http);
    this.tokens = tokens;
    this.responses = responses;
    this.callTimeout = callTimeout;
  }

  /**
   * One attempt: a bearer token, the request through the throttle in {@code priority}'s class, and one fresh token
   * after a 401.
   */
  <T> T attempt(String operation, String path, Priority priority, PixResponses.Reader<T> reader) {
    warnIfUndersized();
    HttpUrl url = apiBase.resolve(path);
    boolean refreshed = false;
    while (true) {
      String bearer = bearer();
      Request request = new Request.Builder().url(url).header("Authorization", "Bearer " + bearer)
          .header("Accept", "application/json").tag(Priority.class, priority).get().build();
      try (Response response = calls.newCall(request).execute()) {
        answered(operation, response);
        if (response.code() == 401 && !refreshed) {
          tokens.invalidate(bearer); // expired or revoked early: one fresh token, one more try
          refreshed = true;
          continue;
        }
        return responses.read(response, reader);
      } catch (ThrottleException e) {
        throw new PixThrottledException("not sent", e);
      } catch (IOException e) {
        throw transport("request failed", e);
      }
    }
  }

  private void warnIfUndersized() {
    String warning = undersized.get() == null ? null : undersized.getAndSet(null);
    if (warning != null) {
      LOG.warn(warning);
    }
  }

  /**
   * Counts one answer of the provider by status, per attempt: a 429 or a 503 that a retry recovered counts here even
   * though the call succeeded ({@code bacen.client.requests} counts the call's outcome).
   */
  private void answered(String operation, Response response) {
    answers(operation, response.code()).increment();
  }

  /** The counter of {@code operation}'s answers with this status. */
  Counter answers(String operation, int status) {
    return answers.of(operation, status);
  }

  /** Fetches the token and prepares the buckets (their scripts, their connections) now. */
  void warmUp(Throttle throttle) {
    bearer();
    preload(throttle);
  }

  /** The throttle's stores prepared now, their failures as the PixExceptions a call reports. */
  static void preload(Throttle throttle) {
    try {
      throttle.preload();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PixTransportException("interrupted while loading the bucket's script", e);
    } catch (BucketUnavailableException e) {
      throw new PixThrottledException("the shared bucket is unavailable", e);
    }
  }

  /** A bearer token within the call timeout: an attempt waits no longer for its token than for its answer. */
  String bearer() {
    try {
      return tokens.get(callTimeout);
    } catch (IOException e) {
      throw tokenFailure(e);
    }
  }

  /** A failed token fetch as the PixException a call reports. */
  static PixException tokenFailure(IOException failure) {
    if (!(failure instanceof OAuthTokenSource.TokenException e)) {
      return transport("token request failed", failure);
    }
    if (e.status() >= 500) {
      return new PixUnavailableException("token endpoint failed", e.status(), null, null, null, e);
    }
    if (e.status() >= 200 && e.status() < 300) {
      return new PixUnexpectedResponseException("token endpoint answered an unusable token: " + e.getMessage(),
          e.status(), null, null, e);
    }
    return new PixAccessDeniedException("token endpoint refused the client credentials", e.status(), null, null, e);
  }

  /**
   * A call timeout is an InterruptedIOException too; a real interrupt left the thread's flag set, which the retry
   * reads: no retry for an interrupted caller.
   */
  static PixException transport(String what, IOException e) {
    return new PixTransportException(what + ": " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
  }

  /**
   * One async attempt: a bearer token, the request through the throttle, one fresh token after a 401. A caller that
   * gave up ({@code gaveUp}, e.g. its future cancelled while the first token was being fetched) sends nothing: checked
   * once the token is there, and again once the call is known to {@code current} (whose cancel covers the rest).
   */
  <T> CompletableFuture<T> attemptAsync(String operation, String path, Priority priority,
      PixResponses.Reader<T> reader, boolean refreshed, AtomicReference<Call> current, BooleanSupplier gaveUp) {
    warnIfUndersized();
    return tokens.getAsync(callTimeout).handle((bearer, failure) -> {
      if (failure != null) {
        Throwable cause = Async.cause(failure);
        throw Async.rethrown(cause instanceof IOException io ? tokenFailure(io) : cause);
      }
      return bearer;
    }).thenCompose(bearer -> {
      if (gaveUp.getAsBoolean()) {
        return CompletableFuture.failedFuture(new CancellationException("cancelled before it was sent; not sent"));
      }
      Request request = new Request.Builder().url(apiBase.resolve(path))
          .header("Authorization", "Bearer " + bearer).header("Accept", "application/json")
          .tag(Priority.class, priority).get().build();
      Call call = calls.newCall(request);
      current.set(call);
      if (gaveUp.getAsBoolean()) {
        call.cancel(); // cancelled while the call was made: it fails without asking for a slot
      }
      CompletableFuture<T> answer = new CompletableFuture<>();
      call.enqueue(new Callback() {
        @Override
        public void onFailure(Call c, IOException e) {
          answer.completeExceptionally(e instanceof ThrottleException t ? new PixThrottledException("not sent", t)
              : transport("request failed", e));
        }

        @Override
        public void onResponse(Call c, Response response) {
          try (response) {
            answered(operation, response);
            if (response.code() == 401 && !refreshed) {
              tokens.invalidate(bearer); // expired or revoked early: one fresh token, one more try
              attemptAsync(operation, path, priority, reader, true, current, gaveUp).whenComplete((value, again) -> {
                if (again == null) {
                  answer.complete(value);
                } else {
                  answer.completeExceptionally(Async.cause(again));
                }
              });
              return;
            }
            answer.complete(responses.read(response, reader));
          } catch (IOException e) {
            answer.completeExceptionally(transport("request failed", e));
          } catch (RuntimeException e) {
            answer.completeExceptionally(e);
          }
        }
      });
      return answer;
    });
  }
}
