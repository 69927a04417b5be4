package io.pixquota.spring.autoconfigure.boot4;

import io.pixquota.throttle.webclient.ThrottlingExchangeFilterFunction;
import java.util.Objects;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.web.reactive.function.client.WebClient;

/** Spring Boot 4's {@code WebClientCustomizer}: every {@code WebClient.Builder} Boot gives out throttles. */
public final class PixQuotaWebClientCustomizer4 implements WebClientCustomizer {
  private final ThrottlingExchangeFilterFunction filter;

  public PixQuotaWebClientCustomizer4(ThrottlingExchangeFilterFunction filter) {
    this.filter = Objects.requireNonNull(filter, "filter cannot be null");
  }

  @Override
  public void customize(WebClient.Builder builder) {
    builder.filter(filter);
  }
}
