package com.example.reactive;

import io.pixquota.bacen.pix.PixNotFoundException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.bacen.pix.ReactivePixClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/** The auto-configured {@link ReactivePixClient}, as a WebFlux endpoint: no thread waits for quota. */
@RestController
class PixController {
  private final ReactivePixClient pix;

  PixController(ReactivePixClient pix) {
    this.pix = pix;
  }

  /** The caller's tenant rides in the Reactor context; {@code ?within=} bounds the answer's wait. */
  @GetMapping("/pix/{endToEndId}")
  Mono<ResponseEntity<Map<String, Object>>> status(@PathVariable String endToEndId,
      @RequestHeader(value = "X-Tenant", defaultValue = "none") String tenant,
      @RequestParam(required = false) Duration within) {
    Mono<ResponseEntity<Map<String, Object>>> answer = pix.getPix(endToEndId)
        .map(p -> ResponseEntity.ok(Map.<String, Object>of("endToEndId", p.endToEndId(), "valor", p.valor())));
    if (within != null) { // a cancel: nothing is sent, the slot goes back
      answer = answer.timeout(within);
    }
    return answer.contextWrite(Context.of(TenantFilter.TENANT, tenant))
        .onErrorResume(PixNotFoundException.class, e -> Mono.just(ResponseEntity.notFound().build()))
        .onErrorResume(e -> e instanceof PixThrottledException || e instanceof TimeoutException,
            e -> Mono.just(ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                .body(Map.of("error", "busy, try again"))));
  }
}
