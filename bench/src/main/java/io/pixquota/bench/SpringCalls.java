package io.pixquota.bench;

import io.pixquota.throttle.AskOrder;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor;
import io.pixquota.throttle.webclient.ThrottlingExchangeFilterFunction;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * {@code bench async}'s calls through Spring's clients with the SDK's adapters: {@code RestClient} on the JDK's
 * {@code HttpClient} with {@link ThrottlingClientHttpRequestInterceptor}, one blocking call per thread of
 * {@code perCall} (virtual threads on Java 21+); {@code WebClient} on reactor-netty with
 * {@link ThrottlingExchangeFilterFunction}, every call subscribed from one thread. A call's leaving is noted by an
 * interceptor or filter after the throttle's, right before the send.
 */
final class SpringCalls {
  private final RestClient rest;
  private final WebClient web;
  private final ExecutorService perCall;

  private SpringCalls(RestClient rest, WebClient web, ExecutorService perCall) {
    this.rest = rest;
    this.web = web;
    this.perCall = perCall;
  }

  /** RestClient's blocking calls, each on a thread of {@code perCall}. */
  static SpringCalls restClient(Throttle throttle, URI pixUrl, String token, Map<Integer, Long> leftAt,
      ExecutorService perCall) {
    RestClient rest = RestClient.builder().baseUrl(pixUrl.toString())
        .requestFactory(new JdkClientHttpRequestFactory(HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(10)).build()))
        .defaultHeader("Authorization", "Bearer " + token)
        .requestInterceptor(new ThrottlingClientHttpRequestInterceptor(throttle))
        .requestInterceptor((request, body, execution) -> {
          left(leftAt, request.getURI().getPath());
          return execution.execute(request, body);
        }).build();
    return new SpringCalls(rest, null, perCall);
  }

  /** WebClient's calls on reactor-netty, subscribed from the calling thread. */
  static SpringCalls webClient(Throttle throttle, URI pixUrl, String token, Map<Integer, Long> leftAt) {
    WebClient web = WebClient.builder().baseUrl(pixUrl.toString())
        .clientConnector(new ReactorClientHttpConnector())
        .defaultHeader("Authorization", "Bearer " + token)
        .filter(new ThrottlingExchangeFilterFunction(throttle))
        .filter((request, next) -> {
          left(leftAt, request.url().getPath());
          return next.exchange(request);
        }).build();
    return new SpringCalls(null, web, null);
  }

  /**
   * One status check of {@code endToEndId}, {@code asking} run as the call asks (on its own thread for RestClient);
   * the future ends with its answer or its failure.
   */
  CompletableFuture<?> call(String endToEndId, Runnable asking) {
    if (rest != null) {
      return CompletableFuture.runAsync(() -> {
        asking.run();
        try (AskOrder asked = AskOrder.mark()) { // the service's entry point, as AskOrder's javadoc shows
          rest.get().uri("pix/{id}", endToEndId).retrieve().toBodilessEntity();
        }
      }, perCall);
    }
    asking.run();
    return web.get().uri("pix/{id}", endToEndId).retrieve().toBodilessEntity().toFuture();
  }

  private static void left(Map<Integer, Long> leftAt, String path) {
    int c = path.lastIndexOf('C');
    if (path.contains("/pix/") && c > 0) {
      leftAt.putIfAbsent(Integer.parseInt(path.substring(c + 1, c + 7)), System.nanoTime());
    }
  }
}
