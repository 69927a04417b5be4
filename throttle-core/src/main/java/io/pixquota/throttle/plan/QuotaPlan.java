package io.pixquota.throttle.plan;

import java.time.Duration;

/**
 * A client bucket that stays under a provider's quota, with the arithmetic that shows why.
 *
 * @param capacity      the client bucket's burst
 * @param ratePerSecond the client bucket's refill
 * @param jitter        the delay spread J the plan tolerates between admission and arrival
 * @param lateLimit     the interceptor's late limit to use with this plan (half of J: the rest is for the network)
 * @param utilization   the sustained share of the provider's rate the plan uses, 0..1
 * @param localShare    the share of each limit for LOCAL_FALLBACK: 1 / replicas (1 when not given); the
 *                      interceptor's {@code plan(...)} caps the configured share with it
 * @param reasoning     the arithmetic, in words and numbers
 */
public record QuotaPlan(double capacity, double ratePerSecond, Duration jitter, Duration lateLimit,
    double utilization, double localShare, String reasoning) {}
