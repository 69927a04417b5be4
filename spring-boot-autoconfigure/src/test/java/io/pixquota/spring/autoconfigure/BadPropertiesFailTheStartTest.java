package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;

/**
 * A bad {@code pixquota.*} value fails the start before any call, and the report a user reads (Spring Boot's own
 * failure analysis, as printed at startup) names the property; a secret's value never appears in it.
 */
@ExtendWith(RedisExtension.class)
class BadPropertiesFailTheStartTest {
  private static final String PROVIDER = "pixquota.provider.base-url=https://pix.example.com";
  private static final String ID = "pixquota.provider.client-id=demo";
  private static final String SECRET = "pixquota.provider.client-secret=s3cr3t-value";

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("pixquota.bucket.capacity", List.of("pixquota.bucket.capacity=0", "pixquota.bucket.rate=9")),
        Arguments.of("pixquota.bucket.capacity", List.of("pixquota.bucket.capacity=0.5", "pixquota.bucket.rate=9")),
        Arguments.of("pixquota.bucket.rate", List.of("pixquota.bucket.capacity=8", "pixquota.bucket.rate=-1")),
        Arguments.of("pixquota.bucket.rate", List.of("pixquota.bucket.capacity=8")),
        Arguments.of("pixquota.bucket.capacity", List.of("pixquota.bucket.rate=9")),
        Arguments.of("pixquota.bucket.name", List.of("pixquota.bucket.name=pix{1}")),
        Arguments.of("pixquota.bucket.name", List.of("pixquota.bucket.name= ")),
        Arguments.of("pixquota.bucket.plan-from-policy", List.of("pixquota.bucket.plan-from-policy=pix",
            "pixquota.bucket.capacity=8", PROVIDER, ID, SECRET)),
        Arguments.of("pixquota.bucket.plan-from-policy", List.of("pixquota.bucket.plan-from-policy=pix")),
        Arguments.of("pixquota.bucket.plan-from-policy", List.of("pixquota.bucket.plan-from-policy=../x",
            PROVIDER, ID, SECRET)),
        Arguments.of("pixquota.bucket.plan-replicas", List.of("pixquota.bucket.plan-from-policy=pix",
            "pixquota.bucket.plan-replicas=0", PROVIDER, ID, SECRET)),
        Arguments.of("pixquota.max-wait", List.of("pixquota.max-wait=-1s")),
        Arguments.of("pixquota.max-wait", List.of("pixquota.max-wait=soon")),
        Arguments.of("pixquota.batch-horizon", List.of("pixquota.batch-horizon=2d")),
        Arguments.of("pixquota.default-priority", List.of("pixquota.default-priority=URGENT")),
        Arguments.of("pixquota.redis.url", List.of("pixquota.redis.url=http://localhost:6379")),
        Arguments.of("pixquota.redis.url", List.of("pixquota.redis.url=redis://localhost:port")),
        Arguments.of("pixquota.redis.timeout", List.of("pixquota.redis.timeout=0s")),
        Arguments.of("pixquota.redis-unavailable.local-share", List.of("pixquota.redis-unavailable.local-share=0")),
        Arguments.of("pixquota.redis-unavailable.local-share", List.of("pixquota.redis-unavailable.local-share=1.5")),
        Arguments.of("pixquota.provider.base-url", List.of("pixquota.provider.base-url=ftp://pix.example.com", ID,
            SECRET)),
        Arguments.of("pixquota.provider.base-url", List.of("pixquota.provider.base-url=https:///nohost", ID,
            SECRET)),
        Arguments.of("pixquota.provider.token-url", List.of(PROVIDER, "pixquota.provider.token-url=file:/etc/x",
            ID, SECRET)),
        Arguments.of("pixquota.provider.client-id", List.of(PROVIDER, SECRET)),
        Arguments.of("pixquota.provider.base-url", List.of("pixquota.provider.base-url=", ID, SECRET)),
        Arguments.of("pixquota.provider.client-secret", List.of(PROVIDER, ID)),
        Arguments.of("pixquota.provider.client-id", List.of(ID)),
        Arguments.of("pixquota.provider.retry-max-attempts", List.of(PROVIDER, ID, SECRET,
            "pixquota.provider.retry-max-attempts=0")),
        Arguments.of("pixquota.provider.warm-up-connections", List.of(PROVIDER, ID, SECRET,
            "pixquota.provider.warm-up-connections=-1")),
        Arguments.of("pixquota.provider.retry-max-attempts", List.of(PROVIDER, ID, SECRET,
            "pixquota.provider.retry-max-attempts=2.5")),
        Arguments.of("pixquota.provider.call-timeout", List.of(PROVIDER, ID, SECRET,
            "pixquota.provider.call-timeout=0ms")),
        Arguments.of("pixquota.provider.call-timeout", List.of(PROVIDER, ID, SECRET, "pixquota.max-wait=60s")),
        Arguments.of("pixquota.quota-signal", List.of("pixquota.quota-signal=Rate Limit")),
        Arguments.of("pixquota.quota-headers", List.of("pixquota.quota-headers=github")),
        Arguments.of("pixquota.max-in-flight", List.of("pixquota.max-in-flight=-1")),
        Arguments.of("pixquota.max-in-flight", List.of("pixquota.max-in-flight=six")),
        Arguments.of("pixquota.permit-lease", List.of("pixquota.max-in-flight=6", "pixquota.permit-lease=0s")),
        Arguments.of("pixquota.permit-lease", List.of("pixquota.max-in-flight=6", "pixquota.max-wait=10s",
            "pixquota.permit-lease=20s")),
        Arguments.of("pixquota.provider.ssl-bundle", List.of(PROVIDER, ID, SECRET,
            "pixquota.provider.ssl-bundle=no-such-bundle")));
  }

  @ParameterizedTest(name = "{0} <- {1}")
  @MethodSource("cases")
  void theStartFailsNamingTheProperty(String property, List<String> values, TestRedis redis) {
    List<String> all = new ArrayList<>(values);
    if (values.stream().noneMatch(v -> v.startsWith("pixquota.redis.url="))) {
      all.add("pixquota.redis.url=" + redis.uri());
    }
    all.add("pixquota.bucket.key-prefix=" + redis.keyPrefix());
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PixQuotaAutoConfiguration.class))
        .withPropertyValues(all.toArray(String[]::new)).run(context -> {
          assertThat(context).hasFailed();
          String report = report(context.getStartupFailure(), new StandardEnvironment());
          assertThat(report).as("what the user reads at startup").contains(property);
          assertThat(report).doesNotContain("s3cr3t-value");
        });
  }

  /** The startup report Spring Boot prints: its failure analysers' description and action, else the messages. */
  private static String report(Throwable failure, Environment environment) {
    for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
        SpringFactoriesLoader.ArgumentResolver.of(Environment.class, environment),
        SpringFactoriesLoader.FailureHandler.logging(LogFactory.getLog(BadPropertiesFailTheStartTest.class)))) {
      FailureAnalysis analysis = analyzer.analyze(failure);
      if (analysis != null) {
        return analysis.getDescription() + "\n" + analysis.getAction();
      }
    }
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }
}
