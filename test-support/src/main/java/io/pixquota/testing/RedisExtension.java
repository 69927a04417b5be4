package io.pixquota.testing;

import java.util.UUID;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Injects a {@link TestRedis} into test methods, constructors and lifecycle methods. The server is shared by the whole
 * JVM ({@link SharedRedis}); each test gets a key prefix of its own, and the clients it opened are shut down after it.
 *
 * <pre>{@code
 * @ExtendWith(RedisExtension.class)
 * class MyTest {
 *   @Test void works(TestRedis redis) { RedissonClient client = redis.newRedisson(); ... }
 * }
 * }</pre>
 */
public final class RedisExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestRedis.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getStore(NAMESPACE).computeIfAbsent(TestRedis.class, k -> {
      String test = context.getTestMethod().map(m -> m.getName())
          .orElse(context.getRequiredTestClass().getSimpleName());
      String prefix = "test:" + test + ":" + UUID.randomUUID().toString().substring(0, 8) + ":";
      return new TestRedis(SharedRedis.get(), prefix);
    }, TestRedis.class);
  }
}
