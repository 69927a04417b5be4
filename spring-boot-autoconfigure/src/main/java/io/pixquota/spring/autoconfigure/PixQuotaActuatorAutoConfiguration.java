package io.pixquota.spring.autoconfigure;

import io.pixquota.bacen.ThrottlingInterceptor;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * With Spring Boot Actuator: the {@code pixquota} health indicator ({@code management.health.pixquota.enabled}) and
 * the {@code pixquota} endpoint (exposed like any other, e.g. {@code management.endpoints.web.exposure.include}).
 */
@AutoConfiguration(after = PixQuotaAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(ThrottlingInterceptor.class)
public class PixQuotaActuatorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "pixquotaHealthIndicator")
  @ConditionalOnEnabledHealthIndicator("pixquota")
  public PixQuotaHealthIndicator pixquotaHealthIndicator(ThrottlingInterceptor throttle) {
    return new PixQuotaHealthIndicator(throttle);
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  public PixQuotaEndpoint pixQuotaEndpoint(ThrottlingInterceptor throttle) {
    return new PixQuotaEndpoint(throttle);
  }
}
