package io.pixquota.spring.autoconfigure.boot4;

import io.pixquota.spring.autoconfigure.PixQuotaView;
import io.pixquota.throttle.Throttle;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code pixquota} in {@code /actuator/health} on Spring Boot 4, whose health API moved to
 * {@code org.springframework.boot.health}: the same status and details as {@code PixQuotaHealthIndicator} on
 * Spring Boot 3. Compiled against spring-boot-health 4.0, loaded only where it is present.
 */
public final class PixQuotaHealthIndicator4 extends AbstractHealthIndicator {
  private final Throttle throttle;

  public PixQuotaHealthIndicator4(Throttle throttle) {
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
