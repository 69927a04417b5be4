package io.pixquota.throttle.restclient;

import io.pixquota.throttle.Exchange;
import io.pixquota.throttle.Flow;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.Unthrottled;
import java.io.IOException;
import java.util.Objects;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The shared quota for Spring's {@code RestClient} and {@code RestTemplate}: each request books its slot in the same
 * bucket, with the same rules, priority classes, 429 handling and metrics as every other adapter of the same
 * {@link Throttle}, then leaves at its slot. Add it to the clients that call the provider, not to every client:
 *
 * <pre>{@code
 * RestClient pix = RestClient.builder().baseUrl(url).requestInterceptor(throttle).build();
 * pix.get().uri("/api/v2/pix/{id}", id).attribute(ThrottlingClientHttpRequestInterceptor.PRIORITY, Priority.BATCH)
 *     .retrieve().body(String.class);
 * }</pre>
 *
 * <p>Failures are the throttle's {@link IOException}s ({@code ThrottleRefusedException} past the max wait,
 * {@code BucketUnavailableException}), which Spring reports as {@code ResourceAccessException}. The connection is
 * made after the wait (as with an OkHttp application interceptor). This class is threadsafe.
 *
 * <p>A request no quota of the throttle takes (its host, method and path), or whose attribute
 * {@link Unthrottled#ATTRIBUTE} is {@code true}, is executed untouched: no store command, no wait, no span, no meter.
 */
public final class ThrottlingClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {
  /** The request attribute that sets a request's {@link Priority}; without it, the throttle's default class. */
  public static final String PRIORITY = Priority.class.getName();

  private final Throttle throttle;

  public ThrottlingClientHttpRequestInterceptor(Throttle throttle) {
    this.throttle = Objects.requireNonNull(throttle, "throttle cannot be null");
  }

  @Override
  public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
      throws IOException {
    Object priority = request.getAttributes().get(PRIORITY);
    if (priority != null && !(priority instanceof Priority)) {
      throw new IllegalArgumentException("request attribute " + PRIORITY + " must be a Priority, but was "
          + priority.getClass().getName());
    }
    String flow = Flow.fromAttribute(request.getAttributes().get(Flow.ATTRIBUTE));
    if (Boolean.TRUE.equals(request.getAttributes().get(Unthrottled.ATTRIBUTE))) {
      return execution.execute(request, body); // opted out: untouched
    }
    String path = request.getURI().getRawPath();
    ThrottleRequest asked = ThrottleRequest.of(request.getMethod().name(), path == null || path.isEmpty() ? "/"
        : path).withPriority((Priority) priority).withHost(request.getURI().getHost()).withFlow(flow);
    return throttle.exchange(asked, new Exchange<>() { // no quota takes it: sent untouched
          @Override
          public ClientHttpResponse send() throws IOException {
            return execution.execute(request, body);
          }

          @Override
          public int status(ClientHttpResponse response) {
            try {
              return response.getStatusCode().value();
            } catch (IOException e) {
              return 0; // unreadable: settles nothing
            }
          }

          @Override
          public String header(ClientHttpResponse response, String name) {
            return response.getHeaders().getFirst(name);
          }
        });
  }

  @Override
  public String toString() {
    return "ThrottlingClientHttpRequestInterceptor{" + throttle.buckets() + "}";
  }
}
