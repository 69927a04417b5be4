/**
 * Outbound throttling for BACEN PIX APIs: a token bucket kept in Redis and shared by every replica, so that a whole
 * fleet stays inside one provider quota. Start with {@link io.pixquota.bacen.RedisTokenBucket} and
 * {@link io.pixquota.bacen.TokenBucketConfig}.
 */
package io.pixquota.bacen;
