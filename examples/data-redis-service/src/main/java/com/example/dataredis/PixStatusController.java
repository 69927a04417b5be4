package com.example.dataredis;

import io.pixquota.bacen.pix.Pix;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixNotFoundException;
import io.pixquota.bacen.pix.PixThrottledException;
import java.util.Map;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** The auto-configured {@link PixClient}, beside the service's own use of Spring Data Redis (a counter). */
@RestController
class PixStatusController {
  private final PixClient pix;
  private final StringRedisTemplate redis;

  PixStatusController(PixClient pix, StringRedisTemplate redis) {
    this.pix = pix;
    this.redis = redis;
  }

  @GetMapping("/pix/{endToEndId}")
  ResponseEntity<Map<String, Object>> status(@PathVariable String endToEndId) {
    redis.opsForValue().increment("data-redis-service:asked");
    try {
      Pix p = pix.getPix(endToEndId);
      return ResponseEntity.ok(Map.of("endToEndId", p.endToEndId(), "valor", p.valor()));
    } catch (PixNotFoundException e) {
      return ResponseEntity.notFound().build();
    } catch (PixThrottledException e) {
      return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
          .body(Map.of("error", "busy, try again"));
    }
  }
}
