package io.pixquota.throttle.redis;

import io.pixquota.throttle.redis.internal.RedissonScripts;
import io.pixquota.throttle.redis.internal.ScriptClient;
import java.util.Objects;
import org.redisson.api.RedissonClient;

/** A {@link RedisStore} on a Redisson client ({@code org.redisson:redisson} on the class path). Immutable. */
public final class RedissonStore implements RedisStore {
  private final ScriptClient scripts;

  private RedissonStore(ScriptClient scripts) {
    this.scripts = scripts;
  }

  /** The store on {@code redisson}, e.g. one {@link RedisAddress#connect} made. */
  public static RedissonStore of(RedissonClient redisson) {
    return new RedissonStore(RedissonScripts.of(Objects.requireNonNull(redisson, "redisson cannot be null")));
  }

  ScriptClient scripts() {
    return scripts;
  }

  @Override
  public String toString() {
    return "RedissonStore";
  }
}
