package io.pixquota.throttle.redis;

/**
 * The Redis client the store's buckets, groups and pools run their scripts through: {@link RedissonStore#of} a
 * Redisson client, or {@link LettuceStore#of} a Lettuce one (one node, Sentinel, or Cluster). Both clients are
 * optional dependencies of this module: a service puts the one it uses on its class path, and the other is never
 * loaded. Processes on either client share the same buckets (the same scripts on the same keys). It has nothing for
 * users to call: it is handed to {@code RedisTokenBucket.create}, {@code RedisBucketGroup.create},
 * {@code RedisPermitPool.create} and the clients' builders. It does not own the client: closing the client is the
 * application's.
 */
public sealed interface RedisStore permits RedissonStore, LettuceStore {}
