package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.Throttle;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * {@code pixquota} in {@code /actuator/health} on Spring Boot 3 ({@code PixQuotaHealthIndicator4} on Spring Boot
 * 4): DOWN when Redis does not answer for a bucket (its calls then fail, or run on the local fallback's share), UP
 * otherwise; per bucket, whether Redis answered and has the script cached,
 * whether the local fallback is active, and whether a call left later than its plan's jitter in the last 5 minutes.
 */
public final class PixQuotaHealthIndicator extends AbstractHealthIndicator {
  private final Throttle throttle;

  public PixQuotaHealthIndicator(Throttle throttle) {
    super("pixquota health check failed");
    this.throttle = throttle;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    PixQuotaView.Health health = PixQuotaView.health(throttle);
    builder.withDetails(health.details());
    if (health.up()) {
      builder.up();
    } else {
      builder.down();
    }
  }
}
