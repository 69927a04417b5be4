package io.pixquota.bacen.pix;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.throttle.Unthrottled;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * OAuth2 client credentials for {@link ReactivePixClient}, as {@link OAuthTokenSource} keeps them for
 * {@link PixClient}: one fetch at a time (concurrent callers share the one in flight), the token kept until 90% of
 * its lifetime (at least 5 s before its end), one fresh fetch after a 401. The token request is not throttled (the
 * {@link Unthrottled#ATTRIBUTE}): it is not a query of the quota, unless the provider counts token requests
 * ({@code ProviderSettings.throttleTokenCalls}). Threadsafe.
 */
final class ReactiveTokens {
  private final WebClient web;
  private final URI tokenUrl;
  private final String basicAuth;
  private final ObjectMapper json;
  private final LongSupplier nanoClock;
  private final Duration timeout;
  private final boolean throttled;
  private final AtomicReference<Cached> cached = new AtomicReference<>();

  ReactiveTokens(WebClient web, ProviderSettings provider, ObjectMapper json, LongSupplier nanoClock) {
    this.web = web;
    this.tokenUrl = provider.tokenUrl();
    this.basicAuth = "Basic " + Base64.getEncoder().encodeToString((provider.clientId() + ":"
        + provider.clientSecret()).getBytes(StandardCharsets.UTF_8));
    this.json = json;
    this.nanoClock = nanoClock;
    this.timeout = provider.callTimeout();
    this.throttled = provider.throttleTokenCalls();
  }

  /** A valid bearer token: the cached one, or the fetch in flight, or a new fetch. */
  Mono<String> token() {
    return Mono.defer(() -> {
      Cached current = cached.get();
      while (current == null) { // another caller's fresh cache, or ours; invalidated meanwhile: again
        AtomicReference<OAuthTokenSource.Token> got = new AtomicReference<>();
        Cached fresh = new Cached(fetch().doOnNext(got::set).cache(t -> Duration.ofNanos(Math.max(0,
            t.refreshAtNanos() - nanoClock.getAsLong())), failure -> Duration.ZERO, () -> Duration.ZERO), got);
        current = cached.compareAndSet(null, fresh) ? fresh : cached.get();
      }
      return current.token();
    }).map(OAuthTokenSource.Token::value);
  }

  /** Forgets {@code rejected} (a 401 said it is no longer valid): the next {@link #token} fetches anew. */
  void invalidate(String rejected) {
    Cached current = cached.get();
    OAuthTokenSource.Token got = current == null ? null : current.got().get();
    if (got != null && got.value().equals(rejected)) {
      cached.compareAndSet(current, null);
    }
  }

  /** One cache of fetches (a single flight, kept for the token's life) and the token it last fetched. */
  private record Cached(Mono<OAuthTokenSource.Token> token, AtomicReference<OAuthTokenSource.Token> got) {}

  private Mono<OAuthTokenSource.Token> fetch() {
    return Mono.defer(() -> {
      long sentAt = nanoClock.getAsLong();
      return web.post().uri(tokenUrl).attribute(Unthrottled.ATTRIBUTE, !throttled)
          .header(HttpHeaders.AUTHORIZATION, basicAuth).contentType(MediaType.APPLICATION_FORM_URLENCODED)
          .bodyValue("grant_type=client_credentials")
          .exchangeToMono(r -> r.bodyToMono(byte[].class).defaultIfEmpty(new byte[0])
              .<OAuthTokenSource.Token>handle((body, sink) -> {
                try {
                  sink.next(OAuthTokenSource.parse(r.statusCode().value(), body, json, sentAt));
                } catch (OAuthTokenSource.TokenException e) {
                  sink.error(PixAttempts.tokenFailure(e));
                }
              }))
          .timeout(timeout)
          .onErrorMap(e -> !(e instanceof PixException), e -> new PixTransportException("token request failed: "
              + e.getClass().getSimpleName(), e));
    });
  }
}
