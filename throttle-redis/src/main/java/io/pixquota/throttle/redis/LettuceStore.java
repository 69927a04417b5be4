package io.pixquota.throttle.redis;

import io.lettuce.core.AbstractRedisClient;
import io.pixquota.throttle.redis.internal.LettuceScripts;
import io.pixquota.throttle.redis.internal.ScriptClient;
import java.util.Objects;

/**
 * A {@link RedisStore} on a Lettuce client ({@code io.lettuce:lettuce-core} on the class path): a
 * {@code RedisClient} made with its URI (one node, or {@code redis-sentinel://}), or a {@code RedisClusterClient}.
 * The store opens its own connections from it at its first command (one for commands, one for pipelines, one for
 * Pub/Sub), never on the caller's thread. Immutable.
 */
public final class LettuceStore implements RedisStore {
  private final ScriptClient scripts;

  private LettuceStore(ScriptClient scripts) {
    this.scripts = scripts;
  }

  /**
   * The store on {@code client}, a {@code RedisClient} (made with its URI) or a {@code RedisClusterClient}, e.g. one
   * {@link RedisAddress#connectLettuce} made, or a Spring {@code LettuceConnectionFactory}'s native client.
   *
   * @throws IllegalArgumentException for another kind of client
   */
  public static LettuceStore of(AbstractRedisClient client) {
    return new LettuceStore(LettuceScripts.of(Objects.requireNonNull(client, "client cannot be null")));
  }

  ScriptClient scripts() {
    return scripts;
  }

  @Override
  public String toString() {
    return "LettuceStore";
  }
}
