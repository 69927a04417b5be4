package io.pixquota.throttle;

import java.util.Map;

/** A provider for tests that answers every send at once with a status and headers (the response is the status). */
public final class Answering implements Exchange<Integer> {
  private final int status;
  private final Map<String, String> headers;

  private Answering(int status, Map<String, String> headers) {
    this.status = status;
    this.headers = Map.copyOf(headers);
  }

  public static Answering status(int status) {
    return new Answering(status, Map.of());
  }

  public static Answering status(int status, Map<String, String> headers) {
    return new Answering(status, headers);
  }

  @Override
  public Integer send() {
    return status;
  }

  @Override
  public int status(Integer response) {
    return response;
  }

  @Override
  public String header(Integer response, String name) {
    return headers.get(name);
  }
}
