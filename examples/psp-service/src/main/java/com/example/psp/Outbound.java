package com.example.psp;

import io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * The service's other outbound calls, on RestClients from Boot's builder with the one throttle's interceptor: what
 * a quota takes waits for it (the settlement system's calls, under {@code pixquota.quotas.spi}), the rest goes out
 * untouched (its OAuth token request, the partner's status service).
 */
@Component
class Outbound {
  private final RestClient spi;
  private final RestClient partner;
  private final String basic;
  private volatile String token;

  Outbound(RestClient.Builder builder, ThrottlingClientHttpRequestInterceptor throttle,
      @Value("${psp.spi-url}") String spiUrl, @Value("${psp.partner-url}") String partnerUrl,
      @Value("${pixquota.provider.client-id}") String clientId,
      @Value("${pixquota.provider.client-secret}") String clientSecret) {
    this.spi = builder.clone().baseUrl(spiUrl).requestInterceptor(throttle).build();
    this.partner = builder.clone().baseUrl(partnerUrl).requestInterceptor(throttle).build();
    this.basic = Base64.getEncoder().encodeToString((clientId + ":" + clientSecret)
        .getBytes(StandardCharsets.UTF_8));
  }

  /** One settlement-system query: at most 6 of the fleet's are in flight at the provider. */
  Map<?, ?> settlement(String endToEndId) {
    return spi.get().uri("api/v2/pix/{id}", endToEndId).header("Authorization", "Bearer " + token())
        .retrieve().body(Map.class);
  }

  /** The partner's status page: no quota, no wait, no Redis. */
  String partnerStatus() {
    return partner.get().uri("status").retrieve().body(String.class);
  }

  private String token() {
    String t = token;
    if (t == null) {
      synchronized (this) {
        if (token == null) { // a token request is not an SPI query: no quota takes it
          token = (String) spi.post().uri("oauth/token").header("Authorization", "Basic " + basic)
              .contentType(MediaType.APPLICATION_FORM_URLENCODED).body("grant_type=client_credentials")
              .retrieve().body(Map.class).get("access_token");
        }
        t = token;
      }
    }
    return t;
  }
}
