/**
 * The Redis store of the throttle: {@link io.pixquota.throttle.redis.RedisTokenBucket}, a token bucket every replica
 * shares through one atomic Lua script, its {@link io.pixquota.throttle.redis.TokenBucketConfig}, and
 * {@link io.pixquota.throttle.redis.RedisAddress} for one node, Sentinel or Cluster.
 */
package io.pixquota.throttle.redis;

