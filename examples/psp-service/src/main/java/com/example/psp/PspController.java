package com.example.psp;

import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictEntry;
import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.dict.DictException;
import io.pixquota.bacen.pix.PixThrottledException;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The four outbound calls, one endpoint each: API Pix, DICT, the settlement system, the partner. */
@RestController
class PspController {
  private final PixClient pix;
  private final DictClient dict;
  private final Outbound outbound;

  PspController(PixClient pix, DictClient dict, Outbound outbound) {
    this.pix = pix;
    this.dict = dict;
    this.outbound = outbound;
  }

  @GetMapping("/pix/{endToEndId}")
  Map<String, Object> pix(@PathVariable String endToEndId) {
    Pix p = pix.getPix(endToEndId);
    return Map.of("endToEndId", p.endToEndId(), "valor", p.valor());
  }

  /** A payment's key, looked up for the payer about to pay it. */
  @GetMapping("/keys/{key}")
  Map<String, Object> key(@PathVariable String key, @RequestParam String payer) {
    DictEntry e = dict.getEntry(key, payer);
    return Map.of("key", e.key(), "keyType", e.keyType());
  }

  @GetMapping("/settlements/{endToEndId}")
  Map<?, ?> settlement(@PathVariable String endToEndId) {
    return outbound.settlement(endToEndId);
  }

  @GetMapping("/partner")
  String partner() {
    return outbound.partnerStatus();
  }

  /** Past a quota's max wait: ask the caller to come back; the quota is never overrun. */
  @ExceptionHandler(PixThrottledException.class)
  ResponseEntity<Map<String, String>> busy(PixThrottledException e) {
    return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
        .body(Map.of("error", "busy, try again"));
  }

  /** A lookup DICT did not answer with an entry: refused by a quota (503), or not found, or failed (502). */
  @ExceptionHandler(DictException.class)
  ResponseEntity<Map<String, String>> dict(DictException e) {
    HttpStatus status = e.refusal() != null ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.BAD_GATEWAY;
    return ResponseEntity.status(status).body(Map.of("error", e.getClass().getSimpleName()));
  }
}
