package io.pixquota.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.bacen.pix.ReactivePixClient;
import io.pixquota.throttle.Throttle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * In a reactive web application with {@code pixquota.provider.base-url}: a {@link ReactivePixClient} on Spring
 * Boot's {@code WebClient.Builder} (its observations, its codecs), through the service's one {@link Throttle}, with
 * {@code pixquota.provider.ssl-bundle}'s key and trust; and, when the application is ready, its warm-up (the token
 * fetched, which opens the connection; the throttle's stores prepared), without blocking. No OkHttp
 * {@code PixClient} is made there.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnProperty(prefix = "pixquota.provider", name = "base-url")
class PixQuotaReactiveClientConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(PixQuotaReactiveClientConfiguration.class);

  @Bean
  @ConditionalOnMissingBean
  ReactivePixClient reactivePixClient(PixQuotaSettings settings, Throttle throttle,
      ObjectProvider<WebClient.Builder> web, ObjectProvider<MeterRegistry> registry, ObjectProvider<SslBundles> ssl) {
    if (settings.client() == null) { // present but empty
      throw new InvalidConfigurationPropertyValueException("pixquota.provider.base-url", "",
          "must be an http or https URL");
    }
    PixQuotaCoverage.pix(throttle, settings.properties(), "ReactivePixClient");
    ReactivePixClient.Builder b = ReactivePixClient.builder(settings.client()).throttle(throttle)
        .webClient(web.getIfAvailable(WebClient::builder));
    registry.ifAvailable(b::meterRegistry);
    SslBundle bundle = PixQuotaAutoConfiguration.sslBundle(settings, ssl);
    if (bundle != null) {
      b.sslContext(bundle.createSslContext());
    }
    return b.build();
  }

  @Bean
  ApplicationListener<ApplicationReadyEvent> pixQuotaReactiveWarmUp(ReactivePixClient client) {
    return event -> client.warmUp().subscribe(null, e -> LOG.warn("pixquota: warm-up failed, the first calls will "
        + "pay for it: {}", e.getMessage()));
  }
}
