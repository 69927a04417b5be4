package io.pixquota.throttle.webclient;

import io.micrometer.observation.Observation;
import io.pixquota.throttle.AsyncBooking;
import io.pixquota.throttle.Departure;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.SlotMissedException;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.Unthrottled;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

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
 * Failures are the throttle's {@link IOException}s, as errors of the {@code Mono} ({@code ThrottleRefusedException}
 * past the max wait, {@code BucketUnavailableException}). A request no quota of the throttle takes (its host, method
 * and path), or whose attribute {@link Unthrottled#ATTRIBUTE} is {@code true}, goes to the next exchange function
 * untouched: no store command, no wait, no span, no meter. Threadsafe.
 */
public final class ThrottlingExchangeFilterFunction implements ExchangeFilterFunction {
  /** The request attribute that sets a request's {@link Priority}; without it, the throttle's default class. */
  public static final String PRIORITY = Priority.class.getName();

  /** Where WebClient keeps the current observation (Micrometer's {@code ObservationThreadLocalAccessor.KEY}). */
  private static final String OBSERVATION_KEY = "micrometer.observation";

  private static final Object CANCELLED = new Object();

  private final Throttle throttle;

  public ThrottlingExchangeFilterFunction(Throttle throttle) {
    this.throttle = Objects.requireNonNull(throttle, "throttle cannot be null");
  }

  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    Object priority = request.attribute(PRIORITY).orElse(null);
    if (priority != null && !(priority instanceof Priority)) {
      return Mono.error(new IllegalArgumentException("request attribute " + PRIORITY + " must be a Priority, but was "
          + priority.getClass().getName()));
    }
    String path = request.url().getRawPath();
    ThrottleRequest asked = ThrottleRequest.of(request.method().name(), path == null || path.isEmpty() ? "/" : path)
        .withPriority((Priority) priority).withHost(request.url().getHost());
    if (Boolean.TRUE.equals(request.attribute(Unthrottled.ATTRIBUTE).orElse(null)) || !throttle.throttles(asked)) {
      return next.exchange(request); // opted out, or no quota takes it: untouched
    }
    // The wait is a Mono of its own; the exchange is subscribed by flatMap, so every filter after this one and the
    // exchange itself see the subscriber's Context (tenant, security, MDC, the request's observation)
    return Mono.deferContextual(context -> departure(asked, context.getOrDefault(OBSERVATION_KEY, null)))
        .flatMap(departure -> next.exchange(request)
            // A 429 or a response cost writes the bucket and waits for Redis: off this (possibly event-loop) thread
            .doOnNext(response -> departure.answered(response.statusCode().value(),
                h -> response.headers().asHttpHeaders().getFirst(h), r -> Schedulers.boundedElastic().schedule(r)))
            // a connection refused: the permit back; after the send: held while the provider may work on it
            .doOnError(departure::failed)
            .doOnCancel(departure::failed)
            .switchIfEmpty(Mono.fromRunnable(departure::failed))); // completed without a response
  }

  /**
   * The wait for the request's slot, without blocking: completes with its departure on the throttle's timer when the
   * slot comes. Cancelled before, the booking gives its slot back (and leaves a pool's line) and nothing is sent.
   */
  private Mono<Departure> departure(ThrottleRequest asked, Object parent) {
    return Mono.create(sink -> {
      // WebClient keeps its request's observation in the Reactor context, not on the thread: the wait goes under it
      AsyncBooking booking = throttle.book(asked, parent instanceof Observation o ? o : null);
      AtomicReference<Object> handed = new AtomicReference<>(); // the departure, or CANCELLED
      sink.onCancel(() -> {
        booking.cancel(); // before its slot: tokens back, nothing sent
        if (handed.getAndSet(CANCELLED) instanceof Departure d) {
          d.notSent(); // cancelled as its slot came: not sent, the permit back
        }
      });
      booking.start(slot -> {
        try {
          Departure d = throttle.depart(slot);
          if (!handed.compareAndSet(null, d)) {
            d.notSent();
            return;
          }
          sink.success(d);
        } catch (SlotMissedException e) {
          if (!booking.missed(slot)) {
            sink.error(e); // cancelled meanwhile: nothing sent
          }
        } catch (IOException e) {
          sink.error(e);
        }
      }, sink::error);
    });
  }

  @Override
  public String toString() {
    return "ThrottlingExchangeFilterFunction{" + throttle.buckets() + "}";
  }
}
