package io.pixquota.throttle.webclient;

import io.micrometer.observation.Observation;
import io.pixquota.throttle.AsyncBooking;
import io.pixquota.throttle.Departure;
import io.pixquota.throttle.SlotMissedException;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleRequest;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link Throttle} in Reactor's terms: {@link #around} waits for a request's slot without a thread (the throttle's
 * async booking, then its timer), then subscribes to the send in the subscriber's own {@code Context}. Used by
 * {@link ThrottlingExchangeFilterFunction} inside a WebClient exchange, or before one, so that the wait is not part of
 * the HTTP client's {@code http.client.requests} or its span: the wait's observation then sits beside the client's,
 * under the caller's. Cancelled before its send, a request gives its slot back (and leaves a pool's line) and sends
 * nothing; once sent, a cancel keeps the permit while the provider may work on the request. Threadsafe.
 */
public final class ReactiveThrottle {
  /** Where the Reactor context keeps the current observation ({@code ObservationThreadLocalAccessor.KEY}). */
  static final String OBSERVATION_KEY = "micrometer.observation";
  private static final Object CANCELLED = new Object();

  private final Throttle throttle;

  public ReactiveThrottle(Throttle throttle) {
    this.throttle = Objects.requireNonNull(throttle, "throttle cannot be null");
  }

  /** Tells the throttle the provider's answer: a 429, its quota headers, a response cost. */
  @FunctionalInterface
  public interface Settle {
    void answered(ClientResponse response);
  }

  /**
   * {@code send} once {@code request}'s slot has come; a request no quota takes is sent at once, untouched. The send
   * calls its {@link Settle} with the provider's response (once; not calling it counts as no answer).
   */
  public <T> Mono<T> around(ThrottleRequest request, Function<Settle, Mono<T>> send) {
    Objects.requireNonNull(request, "request cannot be null");
    Objects.requireNonNull(send, "send cannot be null");
    if (!throttle.throttles(request)) {
      return Mono.defer(() -> send.apply(response -> { }));
    }
    return Mono.deferContextual(context -> departure(request, context.getOrDefault(OBSERVATION_KEY, null)))
        .flatMap(departure -> send.apply(response -> answered(departure, response))
            .doOnError(departure::failed) // before any byte was written: the permit back; after: held
            .doOnCancel(departure::failed)
            .switchIfEmpty(Mono.fromRunnable(departure::failed))); // nothing came of the send
  }

  /** A 429 or a response cost writes the bucket and waits for Redis: off the caller's (event-loop) thread. */
  private static void answered(Departure departure, ClientResponse response) {
    departure.answered(response.statusCode().value(), h -> response.headers().asHttpHeaders().getFirst(h),
        r -> Schedulers.boundedElastic().schedule(r));
  }

  /** The wait for the slot, completing with its departure on the throttle's timer when the slot comes. */
  private Mono<Departure> departure(ThrottleRequest asked, Object parent) {
    return Mono.create(sink -> {
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
    return "ReactiveThrottle{" + throttle.buckets() + "}";
  }
}
