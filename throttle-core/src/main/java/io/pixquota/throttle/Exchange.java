package io.pixquota.throttle;

import java.io.IOException;

/**
 * One request of an HTTP client, as {@link Throttle} needs it: how to send it, and how to read the answer's status and
 * headers. Every transport adapter (OkHttp, Spring's RestClient, a reactive client) is one of these.
 *
 * @param <R> the client's response type
 */
public interface Exchange<R> {
  /** Sends the request; called once, when its slot has come. */
  R send() throws IOException;

  /** The response's HTTP status code; 0 when it cannot be read (nothing is settled then). */
  int status(R response);

  /** A header of the response, or null when it has none of that name. */
  String header(R response, String name);
}
