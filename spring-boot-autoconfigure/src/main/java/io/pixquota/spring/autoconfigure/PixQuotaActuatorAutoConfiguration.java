package io.pixquota.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import io.pixquota.spring.autoconfigure.boot4.PixQuotaHealthIndicator4;
import io.pixquota.throttle.Throttle;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Spring Boot Actuator: the {@code pixquota} endpoint (exposed like any other, e.g.
 * {@code management.endpoints.web.exposure.include}) and the {@code pixquota} health indicator
 * ({@code management.health.pixquota.enabled}), in Spring Boot 3's health API or in Spring Boot 4's, whichever the
 * application runs on.
 */
@AutoConfiguration(after = PixQuotaAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(Throttle.class)
public class PixQuotaActuatorAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnAvailableEndpoint
  public PixQuotaEndpoint pixQuotaEndpoint(Throttle throttle, ObjectProvider<MeterRegistry> registry) {
    return new PixQuotaEndpoint(throttle, registry.getIfAvailable());
  }

  /** Spring Boot 3: {@code org.springframework.boot.actuate.health}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.health.AbstractHealthIndicator")
  static class Boot3Health {
    @Bean
    @ConditionalOnMissingBean(name = "pixquotaHealthIndicator")
    @org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator("pixquota")
    public PixQuotaHealthIndicator pixquotaHealthIndicator(Throttle throttle) {
      return new PixQuotaHealthIndicator(throttle);
    }
  }

  /** Spring Boot 4: {@code org.springframework.boot.health.contributor}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.AbstractHealthIndicator")
  static class Boot4Health {
    @Bean
    @ConditionalOnMissingBean(name = "pixquotaHealthIndicator")
    @org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator("pixquota")
    public PixQuotaHealthIndicator4 pixquotaHealthIndicator(Throttle throttle) {
      return new PixQuotaHealthIndicator4(throttle);
    }
  }
}
