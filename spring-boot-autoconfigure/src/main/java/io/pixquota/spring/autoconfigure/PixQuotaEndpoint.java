package io.pixquota.spring.autoconfigure;

import io.pixquota.bacen.ThrottlingInterceptor;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/pixquota}: each bucket's state in Redis now (tokens, calls booked ahead, when the next slot is
 * free, the rate in force and the fleet's live configurations) and what this process saw of it.
 */
@Endpoint(id = "pixquota")
public class PixQuotaEndpoint {
  private final ThrottlingInterceptor throttle;

  public PixQuotaEndpoint(ThrottlingInterceptor throttle) {
    this.throttle = throttle;
  }

  @ReadOperation
  public Map<String, Object> buckets() {
    Map<String, Object> out = new LinkedHashMap<>();
    for (PixQuotaView.Bucket b : PixQuotaView.read(throttle, true)) {
      out.put(b.name(), b.details());
    }
    return Map.of("buckets", out);
  }
}
