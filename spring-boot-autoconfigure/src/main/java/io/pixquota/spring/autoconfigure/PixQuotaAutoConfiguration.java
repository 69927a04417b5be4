package io.pixquota.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.pixquota.bacen.pix.PixClient;
import io.pixquota.bacen.pix.PixException;
import io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.okhttp.ThrottlingInterceptor;
import io.pixquota.throttle.plan.QuotaPlan;
import io.pixquota.throttle.plan.QuotaPlanner;
import io.pixquota.throttle.redis.RedisTokenBucket;
import java.util.Arrays;
import javax.net.ssl.X509TrustManager;
import org.springframework.core.env.Environment;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.ssl.NoSuchSslBundleException;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.ClientHttpRequestInterceptor;

/**
 * The shared quota for a Spring Boot application: from the {@code pixquota.*} properties, a {@link TokenBucket} in
 * Redis, the {@link Throttle} over it and its OkHttp {@link ThrottlingInterceptor}, and, with
 * {@code pixquota.provider.base-url}, a {@link PixClient} through it; each is made only when the application has
 * none of its own. Meters go to the application's {@link MeterRegistry}; the client is warmed up when the
 * application is ready and closed with the context. Bad properties fail the start, naming the property.
 */
@AutoConfiguration(afterName = {"org.redisson.spring.starter.RedissonAutoConfigurationV2",
    "org.redisson.spring.starter.RedissonAutoConfiguration",
    "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
    "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
    "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus"
        + ".PrometheusMetricsExportAutoConfiguration"})
@ConditionalOnProperty(prefix = "pixquota", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(PixQuotaProperties.class)
@Import(PixQuotaDictConfiguration.class)
public class PixQuotaAutoConfiguration {

  @Bean
  PixQuotaSettings pixQuotaSettings(PixQuotaProperties properties) {
    return new PixQuotaSettings(properties);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(TokenBucket.class)
  PixQuotaRedis pixQuotaRedis(ConfigurableListableBeanFactory beans, PixQuotaSettings settings) {
    ClassLoader classes = beans.getBeanClassLoader() != null ? beans.getBeanClassLoader()
        : PixQuotaAutoConfiguration.class.getClassLoader();
    return PixQuotaRedis.of(beans, classes, settings);
  }

  /**
   * The plan from the provider's own policy, read once at startup ({@code pixquota.bucket.plan-from-policy}): a
   * provider that does not answer fails the start, as a wrong quota would be worse.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "pixquota.bucket", name = "plan-from-policy")
  public QuotaPlan pixQuotaPlan(PixQuotaSettings settings, ObjectProvider<SslBundles> ssl) {
    PixQuotaProperties.Bucket b = settings.properties().getBucket();
    // The policy is read unthrottled (it is not a PIX query): the probe needs a bucket, never books on it.
    PixClient.Builder probe = PixClient.builder(settings.client()).tokenBucket(PixQuotaSettings.NEVER_USED);
    tls(probe, settings, ssl);
    try (PixClient client = probe.build()) {
      return QuotaPlanner.plan(client.getPolicy(b.getPlanFromPolicy()), b.getPlanJitter(), b.getPlanReplicas());
    } catch (PixException e) {
      throw new InvalidConfigurationPropertyValueException("pixquota.bucket.plan-from-policy",
          b.getPlanFromPolicy(), "could not read the provider's policy at startup: " + e.getMessage());
    }
  }

  /** The shared bucket in Redis: the plan's capacity and rate, or the configured ones. */
  @Bean
  @ConditionalOnMissingBean(TokenBucket.class)
  public RedisTokenBucket pixQuotaTokenBucket(PixQuotaSettings settings, PixQuotaRedis redis,
      ObjectProvider<QuotaPlan> plan) {
    QuotaPlan p = plan.getIfAvailable();
    return RedisTokenBucket.create(redis.store(), settings.bucketConfig(
        p != null ? p.capacity() : settings.capacity(), p != null ? p.ratePerSecond() : settings.rate()));
  }

  /** The throttle over the bucket: what every adapter (OkHttp, RestClient, the PixClient) lets requests through. */
  @Bean
  @ConditionalOnMissingBean
  public Throttle pixQuotaThrottle(TokenBucket bucket, PixQuotaSettings settings, ObjectProvider<QuotaPlan> plan,
      ObjectProvider<MeterRegistry> registry, ObjectProvider<ObservationRegistry> observations,
      ObjectProvider<PixQuotaRedis> redis, Environment environment) {
    PixQuotaProperties p = settings.properties();
    boolean quotas = !p.getQuotas().isEmpty(); // named quotas: a request none takes is not throttled
    ThrottleBuilder throttle = (quotas ? Throttle.builder() : Throttle.builder(bucket)).maxWait(p.getMaxWait())
        .defaultPriority(p.getDefaultPriority()).horizon(Priority.BATCH, p.getBatchHorizon())
        .redisUnavailable(p.getRedisUnavailable().getPolicy(), p.getRedisUnavailable().getLocalShare(),
            Throttle.DEFAULT_LOCAL_RETRY_INTERVAL).quotaSignal(settings.quotaSignal())
        .quotaHeaders(p.getQuotaHeaders())
        .flow(p.getFlow() != null ? p.getFlow() : environment.getProperty("spring.application.name"));
    plan.ifAvailable(throttle::plan);
    registry.ifAvailable(throttle::meterRegistry);
    observations.ifAvailable(throttle::observationRegistry); // each wait, a "waiting for quota" span when traced
    if (quotas) {
      PixQuotaQuotas.add(throttle, settings, redis.getIfAvailable());
    } else if (p.getMaxInFlight() > 0) { // the store chooses: beside a Redis bucket, permit and slot in one script
      throttle.providerTimeout(settings.providerTimeout())
          .defaultPool(bucket.permitPool(bucket.name(), p.getMaxInFlight(), settings.permitLease()));
    }
    return throttle.build();
  }

  /** The throttle for OkHttp clients of the application's own, and for the PixClient. */
  @Bean
  @ConditionalOnMissingBean
  public ThrottlingInterceptor pixQuotaThrottlingInterceptor(Throttle throttle) {
    return ThrottlingInterceptor.of(throttle);
  }

  /** Not in a reactive web application: there, a {@code ReactivePixClient} (PixQuotaWebClientAutoConfiguration). */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "pixquota.provider", name = "base-url")
  @Conditional(NotReactiveWeb.class)
  public PixClient pixClient(PixQuotaSettings settings, ThrottlingInterceptor throttle, Throttle routes,
      ObjectProvider<MeterRegistry> registry, ObjectProvider<SslBundles> ssl) {
    if (settings.client() == null) { // present but empty
      throw new InvalidConfigurationPropertyValueException("pixquota.provider.base-url", "",
          "must be an http or https URL");
    }
    PixQuotaCoverage.pix(routes, settings.properties(), "PixClient");
    PixClient.Builder builder = PixClient.builder(settings.client()).throttlingInterceptor(throttle);
    int connections = settings.properties().getProvider().getWarmUpConnections();
    if (connections < 0 || connections > 1000) {
      throw new InvalidConfigurationPropertyValueException("pixquota.provider.warm-up-connections", connections,
          "must be within 0..1000");
    }
    builder.warmUpConnections(connections);
    registry.ifAvailable(builder::meterRegistry);
    tls(builder, settings, ssl);
    return builder.build();
  }

  @Bean
  PixQuotaWarmUp pixQuotaWarmUp(ObjectProvider<PixClient> client, Throttle throttle) {
    return new PixQuotaWarmUp(client, throttle);
  }

  /** The client certificate and trust of {@code pixquota.provider.ssl-bundle}, when set. */
  private static void tls(PixClient.Builder builder, PixQuotaSettings settings, ObjectProvider<SslBundles> ssl) {
    SslBundle bundle = sslBundle(settings, ssl);
    if (bundle == null) {
      return;
    }
    String name = settings.properties().getProvider().getSslBundle();
    X509TrustManager trust = Arrays.stream(bundle.getManagers().getTrustManagers())
        .filter(X509TrustManager.class::isInstance).map(X509TrustManager.class::cast).findFirst()
        .orElseThrow(() -> new InvalidConfigurationPropertyValueException("pixquota.provider.ssl-bundle", name,
            "the bundle has no X.509 trust manager"));
    builder.tls(bundle.createSslContext().getSocketFactory(), trust);
  }

  /** {@code pixquota.provider.ssl-bundle}'s bundle; null when unset. */
  static SslBundle sslBundle(PixQuotaSettings settings, ObjectProvider<SslBundles> ssl) {
    String name = settings.properties().getProvider().getSslBundle();
    if (name == null) {
      return null;
    }
    SslBundles bundles = ssl.getIfAvailable();
    SslBundle bundle;
    try {
      if (bundles == null) {
        throw new NoSuchSslBundleException(name, "no SSL bundles are configured");
      }
      bundle = bundles.getBundle(name);
    } catch (NoSuchSslBundleException e) {
      throw new InvalidConfigurationPropertyValueException("pixquota.provider.ssl-bundle", name,
          "no SSL bundle of that name (spring.ssl.bundle.jks." + name + " or spring.ssl.bundle.pem." + name + ")");
    }
    return bundle;
  }

  /** Any application but a reactive web one. */
  static final class NotReactiveWeb extends NoneNestedConditions {
    NotReactiveWeb() {
      super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static final class Reactive {}
  }

  /** For RestClient and RestTemplate: the same throttle as a {@link ClientHttpRequestInterceptor}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(ClientHttpRequestInterceptor.class)
  static class ClientHttpConfiguration {
    @Bean
    @ConditionalOnMissingBean
    public ThrottlingClientHttpRequestInterceptor pixQuotaClientHttpRequestInterceptor(Throttle throttle) {
      return new ThrottlingClientHttpRequestInterceptor(throttle);
    }
  }
}
