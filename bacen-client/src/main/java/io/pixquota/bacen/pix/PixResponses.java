package io.pixquota.bacen.pix;

import com.fasterxml.jackson.databind.JsonNode;
import io.pixquota.throttle.support.RetryAfter;
import io.pixquota.throttle.support.TimeSource;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import okhttp3.Response;
import okio.BufferedSource;

/**
 * One provider answer to a typed result or to the {@link PixException} its status calls for: 200 with a JSON body is
 * read; RFC 7807 problems give their type and correlationId; Retry-After is read (rounded up) and carried on the
 * exception. Bodies over {@link #MAX_BODY_BYTES} are not read.
 */
final class PixResponses {
  /** Bodies larger than this are not read: 1 MiB, far above any Pix (a few KB with its devoluções). */
  static final long MAX_BODY_BYTES = 1024 * 1024;

  /** Reads a 200's JSON body. */
  @FunctionalInterface
  interface Reader<T> {
    T read(JsonNode body) throws IOException;
  }

  private final PixJson json;
  private final TimeSource time;

  PixResponses(PixJson json, TimeSource time) {
    this.json = json;
    this.time = time;
  }

  <T> T read(Response response, Reader<T> reader) throws IOException {
    int code = response.code();
    return read(code, response.header("Content-Type", ""), response.header("Retry-After"),
        readCapped(response, code), reader);
  }

  /** An answer whatever the HTTP client: its status, Content-Type, Retry-After (null: none) and body. */
  <T> T read(int code, String rawType, String retryAfterHeader, byte[] body, Reader<T> reader) {
    String contentType = rawType == null ? "" : rawType.toLowerCase(Locale.ROOT);
    if (code == 200) {
      if (!contentType.startsWith("application/json")) {
        throw new PixUnexpectedResponseException("expected application/json, got '" + rawType + "'", code, null,
            null, null);
      }
      try {
        return reader.read(json.tree.readValue(body));
      } catch (IOException | RuntimeException e) {
        throw new PixUnexpectedResponseException("unreadable body: " + e.getClass().getSimpleName(), code, null,
            null, e);
      }
    }
    String type = null;
    String correlationId = null;
    if (contentType.startsWith("application/problem+json") || contentType.startsWith("application/json")) {
      try {
        JsonNode problem = json.tree.readValue(body);
        type = problem.path("type").asText(null);
        correlationId = problem.path("correlationId").asText(null);
      } catch (IOException e) {
        // a broken problem body still has its status: map by status alone
      }
    }
    Duration retryAfter = RetryAfter.parse(retryAfterHeader, time.now());
    throw switch (code) {
      case 400 -> new PixInvalidRequestException("invalid request", code, type, correlationId, null);
      case 401, 403 -> new PixAccessDeniedException("access denied", code, type, correlationId, null);
      case 404 -> new PixNotFoundException("not found", code, type, correlationId, null);
      case 429 -> new PixRateLimitedException("rate limited by the provider", type, correlationId, retryAfter);
      default -> code >= 500
          ? new PixUnavailableException("provider unavailable", code, type, correlationId, retryAfter, null)
          : new PixUnexpectedResponseException("unexpected status", code, type, correlationId, null);
    };
  }

  private static byte[] readCapped(Response response, int code) throws IOException {
    BufferedSource source = response.body().source();
    if (source.request(MAX_BODY_BYTES + 1)) {
      throw new PixUnexpectedResponseException("body larger than " + MAX_BODY_BYTES + " bytes; not read", code,
          null, null, null);
    }
    return source.getBuffer().readByteArray();
  }
}
