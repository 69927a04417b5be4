package io.pixquota.throttle.webclient;

import io.pixquota.throttle.Flow;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.Unthrottled;
import java.util.Objects;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * The shared quota for Spring's reactive {@code WebClient}, without blocking a thread: each request books its slot
 * with the throttle's async booking (the bucket's async operation, then the throttle's one timer thread), and is sent
 * when its slot comes, on that timer, through the next exchange function (itself non-blocking). Same bucket, rules,
 * priority classes, permit pools, 429 handling and metrics as every other adapter of the same {@link Throttle}.
 *
 * <pre>{@code
 * WebClient pix = WebClient.builder().baseUrl(url).filter(throttle).build();
 * pix.get().uri("/api/v2/pix/{id}", id).attribute(ThrottlingExchangeFilterFunction.PRIORITY, Priority.BATCH)
 *     .retrieve().bodyToMono(String.class);
 * }</pre>
 *
 * <p>A subscription disposed (or a {@code timeout} operator firing) while the request waits gives its slot's tokens
 * back (and leaves a pool's line) and sends nothing; once sent, it cancels the exchange and gives the permit back.
 * Failures are the throttle's {@link java.io.IOException}s, as errors of the {@code Mono}
 * ({@code ThrottleRefusedException} past the max wait, {@code BucketUnavailableException}). A request no quota of the
 * throttle takes (its host, method and path), or whose attribute {@link Unthrottled#ATTRIBUTE} is {@code true}, goes
 * to the next exchange function untouched: no store command, no wait, no span, no meter. Threadsafe.
 */
public final class ThrottlingExchangeFilterFunction implements ExchangeFilterFunction {
  /** The request attribute that sets a request's {@link Priority}; without it, the throttle's default class. */
  public static final String PRIORITY = Priority.class.getName();

  private final Throttle throttle;
  private final ReactiveThrottle reactive;

  public ThrottlingExchangeFilterFunction(Throttle throttle) {
    this.throttle = Objects.requireNonNull(throttle, "throttle cannot be null");
    this.reactive = new ReactiveThrottle(throttle);
  }

  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    Object priority = request.attribute(PRIORITY).orElse(null);
    if (priority != null && !(priority instanceof Priority)) {
      return Mono.error(new IllegalArgumentException("request attribute " + PRIORITY + " must be a Priority, but was "
          + priority.getClass().getName()));
    }
    String flow;
    try {
      flow = Flow.fromAttribute(request.attribute(Flow.ATTRIBUTE).orElse(null));
    } catch (IllegalArgumentException e) {
      return Mono.error(e);
    }
    String path = request.url().getRawPath();
    ThrottleRequest asked = ThrottleRequest.of(request.method().name(), path == null || path.isEmpty() ? "/" : path)
        .withPriority((Priority) priority).withHost(request.url().getHost()).withFlow(flow);
    if (Boolean.TRUE.equals(request.attribute(Unthrottled.ATTRIBUTE).orElse(null))) {
      return next.exchange(request); // opted out: untouched (as is a request no quota takes)
    }
    // The wait is a Mono of its own; the exchange is subscribed by flatMap, so every filter after this one and the
    // exchange itself see the subscriber's Context (tenant, security, MDC, the request's observation)
    return reactive.around(asked, settle -> next.exchange(request).doOnNext(settle::answered));
  }

  @Override
  public String toString() {
    return "ThrottlingExchangeFilterFunction{" + throttle.buckets() + "}";
  }
}
