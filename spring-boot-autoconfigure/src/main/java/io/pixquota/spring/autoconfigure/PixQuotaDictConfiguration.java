package io.pixquota.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientBuilder;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.throttle.Throttle;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * With a DICT quota ({@code pixquota.quotas.<name>.dict.participant}), a {@link DictClient} whose lookups go through
 * the service's one {@link Throttle} under that quota, its mirror in the starter's Redis. One DICT quota per service.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(PixQuotaDictConfiguration.OnDictQuota.class)
class PixQuotaDictConfiguration {
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  DictClient pixQuotaDictClient(PixQuotaSettings settings, Throttle throttle, ObjectProvider<PixQuotaRedis> redis,
      ObjectProvider<MeterRegistry> registry) {
    List<String> names = new ArrayList<>();
    settings.properties().getQuotas().forEach((name, q) -> {
      if (q.isDict()) {
        names.add(name);
      }
    });
    if (names.size() != 1) {
      throw new InvalidConfigurationPropertyValueException("pixquota.quotas", names, "one DICT quota per service "
          + "(its participant's mirror): found " + names.size());
    }
    String prefix = "pixquota.quotas." + names.get(0) + ".dict";
    PixQuotaDictProperties d = settings.properties().getQuotas().get(names.get(0)).getDict();
    DictClientConfig config;
    try {
      if (d.getBaseUrl() == null || d.getPayerSecret() == null) {
        throw new IllegalArgumentException("base-url and payer-secret are required with a participant");
      }
      config = DictClientConfig.builder().baseUrl(URI.create(d.getBaseUrl())).participant(d.getParticipant())
          .payerSecret(d.getPayerSecret()).policies(DictPolicies.parse(d.getPolicies()))
          .keyPrefix(settings.properties().getBucket().getKeyPrefix()).build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw new InvalidConfigurationPropertyValueException(prefix, d, e.getMessage());
    }
    // the quota is the lookups' mirror: a DictClient it does not take would bypass it, so none may go unthrottled
    PixQuotaCoverage.check(throttle, "DictClient", prefix + ".base-url", URI.create(d.getBaseUrl()),
        PixQuotaCoverage.DICT_PATH, null);
    DictClientBuilder b = DictClient.builder(config).throttle(throttle);
    PixQuotaRedis r = redis.getIfAvailable();
    if (r != null) {
      b.store(r.store());
    }
    registry.ifAvailable(b::meterRegistry);
    return b.build();
  }

  /** Whether a quota names a DICT participant. */
  static final class OnDictQuota extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      Map<String, PixQuotaQuotaProperties> quotas = Binder.get(context.getEnvironment()).bind("pixquota.quotas",
          Bindable.mapOf(String.class, PixQuotaQuotaProperties.class)).orElse(Map.of());
      boolean dict = quotas.values().stream().anyMatch(PixQuotaQuotaProperties::isDict);
      return dict ? ConditionOutcome.match("a DICT quota is configured")
          : ConditionOutcome.noMatch("no pixquota.quotas.<name>.dict.participant");
    }
  }
}
