package io.pixquota.snippets;

import io.pixquota.bacen.pix.Pix;
import io.pixquota.throttle.AskOrder;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor;
import org.springframework.web.client.RestClient;

/** Spring's RestClient through the throttle: the starter's interceptor bean on a client of the application's. */
final class SpringClients {
  private SpringClients() {}

  static String restClient(ThrottlingClientHttpRequestInterceptor throttle, String e2eid) {
    // region rest-client
    RestClient pix = RestClient.builder()
        .baseUrl("https://pix.example.com/api/v2/")
        .requestInterceptor(throttle) // the starter's ThrottlingClientHttpRequestInterceptor bean
        .build();
    return pix.get().uri("pix/{e2eid}", e2eid)
        .attribute(ThrottlingClientHttpRequestInterceptor.PRIORITY, Priority.BATCH) // never ahead of a person
        .retrieve().body(String.class);
    // endregion
  }

  static Pix markedEntry(RestClient restClient, String id) {
    // region ask-order
    try (AskOrder asked = AskOrder.mark()) { // the first mark on a thread stands: nested clients keep it
      return restClient.get().uri("/api/v2/pix/{id}", id).retrieve().body(Pix.class);
    }
    // endregion
  }
}
