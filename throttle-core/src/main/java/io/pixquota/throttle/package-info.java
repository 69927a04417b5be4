/**
 * The throttle a service calls, knowing no transport and no store: {@link io.pixquota.throttle.Throttle} routes a call
 * to its bucket, books its slot, waits for it (blocking, or on a timer for async callers), books again when the slot
 * went bad, and settles the provider's answer; priority classes, quota headers and the typed failures. HTTP clients
 * plug in through {@link io.pixquota.throttle.Exchange}; the stores it books on implement the SPIs of
 * {@code io.pixquota.throttle.store}. Everything package-private here is the engine.
 */
package io.pixquota.throttle;
