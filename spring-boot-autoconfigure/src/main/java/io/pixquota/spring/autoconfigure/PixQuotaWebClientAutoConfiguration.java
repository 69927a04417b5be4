package io.pixquota.spring.autoconfigure;

import io.pixquota.throttle.webclient.ThrottlingExchangeFilterFunction;
import io.pixquota.spring.autoconfigure.boot4.PixQuotaWebClientCustomizer4;
import io.pixquota.throttle.Throttle;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * With WebFlux on the class path: the throttle as a {@link ThrottlingExchangeFilterFunction} bean, and a
 * {@code WebClientCustomizer} (Spring Boot 3's or 4's) that adds it to every {@code WebClient.Builder} Boot gives out,
 * unless {@code pixquota.webclient.customize=false} (then add the bean to the clients that call the provider); in a
 * reactive web application with a provider, a {@code ReactivePixClient} ({@link PixQuotaReactiveClientConfiguration}).
 */
@AutoConfiguration(after = PixQuotaAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.web.reactive.function.client.WebClient")
@ConditionalOnBean(Throttle.class)
@Import(PixQuotaReactiveClientConfiguration.class)
public class PixQuotaWebClientAutoConfiguration {
  static final String CUSTOMIZE = "customize";

  @Bean
  @ConditionalOnMissingBean
  public ThrottlingExchangeFilterFunction pixQuotaExchangeFilterFunction(Throttle throttle) {
    return new ThrottlingExchangeFilterFunction(throttle);
  }

  /** Spring Boot 3: {@code org.springframework.boot.web.reactive.function.client.WebClientCustomizer}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.web.reactive.function.client.WebClientCustomizer")
  @ConditionalOnProperty(prefix = "pixquota.webclient", name = CUSTOMIZE, havingValue = "true", matchIfMissing = true)
  static class Boot3Customizer {
    @Bean
    @ConditionalOnMissingBean(name = "pixQuotaWebClientCustomizer")
    public org.springframework.boot.web.reactive.function.client.WebClientCustomizer pixQuotaWebClientCustomizer(
        ThrottlingExchangeFilterFunction filter) {
      return builder -> builder.filter(filter);
    }
  }

  /** Spring Boot 4: {@code org.springframework.boot.webclient.WebClientCustomizer}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.webclient.WebClientCustomizer")
  @ConditionalOnProperty(prefix = "pixquota.webclient", name = CUSTOMIZE, havingValue = "true", matchIfMissing = true)
  static class Boot4Customizer {
    @Bean
    @ConditionalOnMissingBean(name = "pixQuotaWebClientCustomizer")
    public PixQuotaWebClientCustomizer4 pixQuotaWebClientCustomizer(ThrottlingExchangeFilterFunction filter) {
      return new PixQuotaWebClientCustomizer4(filter);
    }
  }
}
