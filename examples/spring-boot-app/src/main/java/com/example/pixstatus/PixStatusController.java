package com.example.pixstatus;

import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixNotFoundException;
import io.pixquota.bacen.pix.PixThrottledException;
import io.pixquota.throttle.Priority;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The auto-configured {@link PixClient}, injected like any bean. */
@RestController
class PixStatusController {
  private final PixClient pix;

  PixStatusController(PixClient pix) {
    this.pix = pix;
  }

  /** A person waits for this one (INTERACTIVE); a reconciliation job asks with {@code ?priority=BATCH}. */
  @GetMapping("/pix/{endToEndId}")
  ResponseEntity<Map<String, Object>> status(@PathVariable String endToEndId,
      @RequestParam(defaultValue = "INTERACTIVE") Priority priority) {
    try {
      Pix p = pix.getPix(endToEndId, priority);
      return ResponseEntity.ok(Map.of("endToEndId", p.endToEndId(), "valor", p.valor(), "horario",
          String.valueOf(p.horario())));
    } catch (PixNotFoundException e) {
      return ResponseEntity.notFound().build();
    } catch (PixThrottledException e) {
      // Past the max wait, or the shared bucket unreachable: ask the caller to come back, never overrun the quota.
      return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
          .body(Map.of("error", "busy, try again"));
    }
  }
}
