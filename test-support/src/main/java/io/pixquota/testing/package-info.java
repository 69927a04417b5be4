/**
 * Real Redis for the tests of every module: {@link io.pixquota.testing.RedisExtension} picks one server for the whole
 * JVM ({@code REDIS_URL}, else a Testcontainers {@code redis:7} container when Docker answers, else a Redis binary
 * shipped in a Maven package) and gives each test its own key prefix; {@link io.pixquota.harness.PrivateRedisServer}
 * is a {@code redis-server} process of a test's own, to kill, pause and restart. Never a mock of Redis.
 */
package io.pixquota.testing;

