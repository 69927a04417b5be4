package io.pixquota.bacen.pix;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleException;
import io.pixquota.throttle.ThrottleRequest;
import io.pixquota.throttle.Unthrottled;
import io.pixquota.throttle.support.TimeSource;
import io.pixquota.throttle.webclient.ReactiveThrottle;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * API Pix for a reactive service: {@link PixClient}'s typed calls as {@link Mono}s on Spring's {@link WebClient},
 * with the same exceptions, retries (429, 503 and I/O errors, Retry-After honoured, within the retry budget), meters
 * ({@code bacen.client.*}) and OAuth2 client credentials (one fetch for concurrent callers, never throttled). Each
 * attempt waits for its slot in the given {@link Throttle} without a thread ({@link ReactiveThrottle}) before its
 * WebClient exchange starts, so that {@code http.client.requests} and the HTTP client span time the provider alone;
 * the caller's Reactor {@code Context} reaches every filter and the exchange. Cancelling a call before its send gives
 * its slot back and sends nothing. Needs spring-webflux on the class path. Threadsafe.
 *
 * <pre>{@code
 * ReactivePixClient pix = ReactivePixClient.builder(config).throttle(throttle).build();
 * Mono<Pix> p = pix.getPix("E12345678202611301200ABCDEFGHIJK");
 * }</pre>
 */
public final class ReactivePixClient {
  private final PixClientConfig config;
  private final WebClient web;
  private final URI apiBase;
  private final Throttle throttle;
  private final ReactiveThrottle reactive;
  private final ReactiveTokens tokens;
  private final PixJson json;
  private final PixResponses responses;
  private final PixRetry retry;
  private final AnswerCounters answers;

  private ReactivePixClient(Builder b) {
    this.config = b.config;
    this.throttle = Objects.requireNonNull(b.throttle, "throttle is required: the quota its calls wait for");
    MeterRegistry registry = b.registry != null ? b.registry : new CompositeMeterRegistry();
    this.answers = new AnswerCounters(registry);
    this.json = new PixJson();
    this.responses = new PixResponses(json, TimeSource.SYSTEM);
    this.retry = new PixRetry(config.retry(), TimeSource.SYSTEM, registry,
        bound -> ThreadLocalRandom.current().nextLong(bound + 1));
    this.apiBase = config.provider().baseUrl();
    WebClient.Builder wb = b.web != null ? b.web.clone() : WebClient.builder();
    if (b.sslContext != null) { // mutual TLS: the same key and trust as PixClient's
      wb.clientConnector(new JdkClientHttpConnector(HttpClient.newBuilder().sslContext(b.sslContext)
          .followRedirects(HttpClient.Redirect.NEVER).build()));
    }
    this.web = wb.codecs(c -> c.defaultCodecs().maxInMemorySize((int) PixResponses.MAX_BODY_BYTES)).build();
    this.reactive = new ReactiveThrottle(throttle);
    this.tokens = new ReactiveTokens(web, config.provider(), json.mapper, System::nanoTime);
    for (String operation : new String[] {"getPix", "getCob"}) {
      retry.retries(operation);
      answers.of(operation, 429); // at 0 from the start: an alert on its increase sees the first one
    }
  }

  /** A client of {@code config}'s provider; {@link Builder#throttle} is required. */
  public static Builder builder(PixClientConfig config) {
    return new Builder(Objects.requireNonNull(config, "config cannot be null"));
  }

  /**
   * {@code GET /api/v2/pix/{endToEndId}} in the default priority class, as {@link PixClient#getPix(String)}: the Pix,
   * or an error with the {@link PixException} that call would throw.
   *
   * @throws IllegalArgumentException for a malformed endToEndId, before any I/O
   */
  public Mono<Pix> getPix(String endToEndId) {
    return getPix(endToEndId, config.throttling().defaultPriority());
  }

  /** {@link #getPix(String)} in a priority class (see {@link PixClient#getPix(String, Priority)}). */
  public Mono<Pix> getPix(String endToEndId, Priority priority) {
    PixIds.checkEndToEndId(endToEndId);
    Objects.requireNonNull(priority, "priority cannot be null");
    return call("getPix", "pix/{id}", endToEndId, priority, json::pix);
  }

  /** {@code GET /api/v2/cob/{txid}}, as {@link PixClient#getCob(String)}. */
  public Mono<Cob> getCob(String txid) {
    return getCob(txid, config.throttling().defaultPriority());
  }

  /** {@link #getCob(String)} in a priority class. */
  public Mono<Cob> getCob(String txid, Priority priority) {
    PixIds.checkTxid(txid);
    Objects.requireNonNull(priority, "priority cannot be null");
    return call("getCob", "cob/{id}", txid, priority, json::cob);
  }

  /**
   * Fetches the token (which opens a connection to the provider) and prepares the throttle's stores (their scripts,
   * their connections), so that a cold burst's first calls pay for neither; the store's part off the caller's thread.
   */
  public Mono<Void> warmUp() {
    return tokens.token().then(Mono.<Void>fromRunnable(() -> PixAttempts.preload(throttle))
        .subscribeOn(Schedulers.boundedElastic()));
  }

  /** One call: its attempts and the waits between them (PixClient's), in the caller's Reactor Context. */
  private <T> Mono<T> call(String operation, String template, String id, Priority priority,
      PixResponses.Reader<T> reader) {
    return Mono.deferContextual(context -> {
      AtomicReference<CompletableFuture<T>> current = new AtomicReference<>();
      AtomicBoolean cancelled = new AtomicBoolean();
      CompletableFuture<T> result = retry.callAsync(operation, () -> {
        CompletableFuture<T> once = attempt(operation, template, id, priority, reader, false).contextWrite(context)
            .toFuture();
        current.set(once);
        if (cancelled.get()) {
          once.cancel(false);
        }
        return once;
      });
      result.whenComplete((value, failure) -> {
        if (result.isCancelled()) { // the subscriber cancelled: so is the attempt in flight (its slot back)
          cancelled.set(true);
          CompletableFuture<T> once = current.get();
          if (once != null) {
            once.cancel(false);
          }
        }
      });
      return Mono.fromFuture(result, false);
    });
  }

  /** One attempt: a bearer token, the request through the throttle, one fresh token after a 401. */
  private <T> Mono<T> attempt(String operation, String template, String id, Priority priority,
      PixResponses.Reader<T> reader, boolean refreshed) {
    URI url = apiBase.resolve(template.replace("{id}", id)); // an id checked before: letters and digits
    ThrottleRequest asked = ThrottleRequest.of("GET", url.getRawPath()).withHost(url.getHost())
        .withPriority(priority);
    // The slot first, then the exchange: WebClient's observation (http.client.requests, the client span) times the
    // provider alone, and the wait's observation sits beside it, under the caller's. The URI as a template: the
    // meter's uri tag is /api/v2/pix/{id}, not one series per id
    return tokens.token().flatMap(bearer -> reactive.around(asked, settle -> web.get().uri(apiBase + template, id)
        .header(HttpHeaders.AUTHORIZATION, "Bearer " + bearer).accept(MediaType.APPLICATION_JSON)
        .attribute(Unthrottled.ATTRIBUTE, true) // waited for above: a throttle filter on the builder lets it pass
        .exchangeToMono(r -> {
          settle.answered(r);
          return r.bodyToMono(byte[].class).defaultIfEmpty(new byte[0]).map(body -> new Answer(
              r.statusCode().value(), r.headers().asHttpHeaders().getFirst(HttpHeaders.CONTENT_TYPE),
              r.headers().asHttpHeaders().getFirst(HttpHeaders.RETRY_AFTER), body));
        }))
        .timeout(config.provider().callTimeout())
        .onErrorMap(e -> !(e instanceof PixException), ReactivePixClient::failure)
        .flatMap(a -> {
          answers.of(operation, a.code()).increment();
          if (a.code() == 401 && !refreshed) {
            tokens.invalidate(bearer); // expired or revoked early: one fresh token, one more try
            return attempt(operation, template, id, priority, reader, true);
          }
          return Mono.fromCallable(() -> responses.read(a.code(), a.contentType(), a.retryAfter(), a.body(),
              reader));
        }));
  }

  /** What the transport or the throttle failed with, as the PixException PixClient's calls report. */
  private static Throwable failure(Throwable e) {
    if (e instanceof ThrottleException t) {
      return new PixThrottledException("not sent", t);
    }
    if (e.getCause() instanceof ThrottleException t) {
      return new PixThrottledException("not sent", t);
    }
    if (e instanceof DataBufferLimitException) {
      return new PixUnexpectedResponseException("body larger than " + PixResponses.MAX_BODY_BYTES + " bytes; not "
          + "read", 0, null, null, e);
    }
    return new PixTransportException(e.getClass().getSimpleName() + ": " + e.getMessage(), e);
  }

  /** One answer, read in full (at most {@link PixResponses#MAX_BODY_BYTES}). */
  private record Answer(int code, String contentType, String retryAfter, byte[] body) {}

  @Override
  public String toString() {
    return "ReactivePixClient{" + config.provider().baseUrl() + ", " + throttle + "}";
  }

  /** How a {@link ReactivePixClient} is made. */
  public static final class Builder {
    private final PixClientConfig config;
    private Throttle throttle;
    private WebClient.Builder web;
    private MeterRegistry registry;
    private SSLContext sslContext;

    private Builder(PixClientConfig config) {
      this.config = config;
    }

    /** The quota every call waits for (required): the service's one throttle, its quotas routing the calls. */
    public Builder throttle(Throttle throttle) {
      this.throttle = Objects.requireNonNull(throttle, "throttle cannot be null");
      return this;
    }

    /** The WebClient to build on (cloned; default {@code WebClient.builder()}), e.g. Spring Boot's, observed. */
    public Builder webClient(WebClient.Builder builder) {
      this.web = Objects.requireNonNull(builder, "builder cannot be null");
      return this;
    }

    /** Where the {@code bacen.client.*} meters go; default none. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry cannot be null");
      return this;
    }

    /** Mutual TLS: the client certificate and trust (a JDK connector with this context replaces the builder's). */
    public Builder sslContext(SSLContext context) {
      this.sslContext = Objects.requireNonNull(context, "context cannot be null");
      return this;
    }

    public ReactivePixClient build() {
      if (throttle == null) {
        throw new IllegalStateException("throttle is required: the quota the client's calls wait for");
      }
      return new ReactivePixClient(this);
    }
  }
}
