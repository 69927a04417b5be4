package com.example.reactive;

import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * A filter of the service's own on Boot's {@code WebClient.Builder} (so on the ReactivePixClient's too): the tenant
 * the controller wrote in the Reactor context goes out as a header, as an OAuth2 or MDC filter would read it.
 */
@Component
class TenantFilter implements WebClientCustomizer {
  static final String TENANT = "tenant";

  @Override
  public void customize(WebClient.Builder builder) {
    builder.filter((request, next) -> Mono.deferContextual(context -> next.exchange(ClientRequest.from(request)
        .header("X-Tenant", context.getOrDefault(TENANT, "none")).build())));
  }
}
