package io.pixquota.throttle;

import java.time.Duration;
import java.util.Optional;

/**
 * What this process saw of one bucket of a {@link Throttle} ({@link Throttle#status()}).
 *
 * @param bucket              the bucket's name
 * @param localFallbackActive whether its calls go to the local share now, because its store did not answer
 *                            ({@link RedisUnavailablePolicy#LOCAL_FALLBACK})
 * @param marginExceeded      calls that left later after their slot than the plan's jitter J allows, since start
 *                            (always 0 without a {@link ThrottleBuilder#plan plan})
 * @param sinceMarginExceeded how long ago the last of them left; empty when none did
 */
public record BucketStatus(String bucket, boolean localFallbackActive, long marginExceeded,
    Optional<Duration> sinceMarginExceeded) {}
