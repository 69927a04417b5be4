/**
 * Implementation details of the Redis store (the script, its protocol, Redisson's connect); not public API.
 */
package io.pixquota.throttle.redis.internal;

