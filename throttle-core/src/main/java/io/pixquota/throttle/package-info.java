/**
 * The throttle, knowing no transport and no store: the {@link io.pixquota.throttle.TokenBucket} SPI and its values,
 * priority classes, rate adaptation, the typed failures, and {@link io.pixquota.throttle.Throttle}, which routes a
 * call to its bucket, books its slot, waits for it (blocking, or on a timer for async callers), books again when the
 * slot went bad, and settles the provider's answer. HTTP clients plug in through
 * {@link io.pixquota.throttle.Exchange}; stores implement {@link io.pixquota.throttle.TokenBucket}.
 */
package io.pixquota.throttle;

