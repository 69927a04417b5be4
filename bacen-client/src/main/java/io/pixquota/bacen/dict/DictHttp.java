package io.pixquota.bacen.dict;

import io.pixquota.throttle.Priority;
import io.pixquota.throttle.okhttp.ThrottledCallFactory;
import io.pixquota.throttle.store.TokenBucket;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okio.BufferedSource;

/**
 * DICT's HTTP: the lookup's request (with {@code PI-RequestingParticipant}, the pseudonymised {@code PI-PayerId},
 * {@code PI-EndToEndId}, {@code PI-PayerType}) and {@code GET /policies}, each answer read whole (at most
 * {@link #MAX_BODY} bytes: an answer from the network is bounded) with its headers.
 */
final class DictHttp {
  static final int MAX_BODY = 64 * 1024;

  /** An answer: its status, body and headers (a name to its first value, null when absent). */
  record Answer(int status, byte[] body, Function<String, String> header) {}

  private final OkHttpClient http;
  private final OkHttpClient throttled;
  private final ThrottledCallFactory asyncLookups;
  private final HttpUrl api;
  private final String participant;

  /**
   * @param http      the client of what is not a lookup ({@code GET /policies})
   * @param throttled {@code http} with the throttle's interceptor and {@link DictSending}: the lookups' client
   */
  DictHttp(OkHttpClient http, OkHttpClient throttled, HttpUrl api, String participant) {
    this.http = http;
    this.throttled = throttled;
    this.asyncLookups = ThrottledCallFactory.of(throttled);
    this.api = api;
    this.participant = participant;
  }

  OkHttpClient client() {
    return http;
  }

  OkHttpClient throttledClient() {
    return throttled;
  }

  /** A lookup's request, tagged with its class and its buckets for the throttle. */
  Request entry(DictLookupBucket lookup) {
    DictLookups.Prepared p = lookup.prepared();
    return entry(p.key(), p.payer().hex(), p.payerType(), p.endToEndId()).newBuilder()
        .tag(Priority.class, p.priority()).tag(TokenBucket.class, lookup).build();
  }

  Request entry(DictKey key, String payerIdHex, DictPolicy.PayerType payerType, String endToEndId) {
    return new Request.Builder().url(api.newBuilder().addPathSegment("entries").addPathSegment(key.value()).build())
        .header("Accept", "application/xml").header("PI-RequestingParticipant", participant)
        .header("PI-PayerId", payerIdHex).header("PI-EndToEndId", endToEndId)
        .header("PI-PayerType", payerType.name()).get().build();
  }

  Request policies() {
    return new Request.Builder().url(api.newBuilder().addPathSegment("policies").build())
        .header("Accept", "application/xml").header("PI-RequestingParticipant", participant).get().build();
  }

  /** Sends what is not a lookup, unthrottled. */
  Answer execute(Request request) throws IOException {
    try (Response r = http.newCall(request).execute()) {
      return read(r);
    }
  }

  /** Sends a lookup once the throttle gives its slot, on this thread; the throttle's refusals are its IOExceptions. */
  Answer lookup(Request request) throws IOException {
    try (Response r = throttled.newCall(request).execute()) {
      return read(r);
    }
  }

  /**
   * A lookup that waits for its slot without a thread; the future completes on OkHttp's thread with the answer, or
   * the throttle's refusal or the I/O failure.
   */
  CompletableFuture<Answer> enqueue(Request request) {
    CompletableFuture<Answer> answer = new CompletableFuture<>();
    asyncLookups.newCall(request).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        answer.completeExceptionally(e);
      }

      @Override
      public void onResponse(Call call, Response response) {
        try (response) {
          answer.complete(read(response));
        } catch (IOException | RuntimeException e) {
          answer.completeExceptionally(e);
        }
      }
    });
    return answer;
  }

  private static Answer read(Response r) throws IOException {
    BufferedSource source = r.body().source();
    if (source.request(MAX_BODY + 1L)) {
      throw new IOException("DICT's answer is longer than " + MAX_BODY + " bytes");
    }
    byte[] bytes = source.getBuffer().readByteArray(); // the whole body: the source is exhausted
    Headers headers = r.headers();
    return new Answer(r.code(), bytes, headers::get);
  }
}
