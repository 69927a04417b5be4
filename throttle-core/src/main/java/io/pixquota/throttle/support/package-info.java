/**
 * The few helpers the SDK's clients share with the throttle, public so that a client built on it (ours or a
 * service's) follows the same rules: {@link io.pixquota.throttle.support.TimeSource} (the clock every wait is computed
 * and slept on; tests move it), {@link io.pixquota.throttle.support.Checks} (argument checks whose message names the
 * field and the value), {@link io.pixquota.throttle.support.RetryAfter} (a provider's hold, read as untrusted input)
 * and {@link io.pixquota.throttle.support.Async} (futures' causes). A leaf: it depends on no other package of the
 * project.
 */
package io.pixquota.throttle.support;
