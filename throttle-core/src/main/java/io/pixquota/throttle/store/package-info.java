/**
 * The store SPIs the throttle books on, and their local versions: {@link io.pixquota.throttle.store.TokenBucket} (a
 * rate, one or several limits), {@link io.pixquota.throttle.store.BucketGroup} (several buckets decided at once, all or
 * none) and {@link io.pixquota.throttle.store.PermitPool} (a cap on calls in flight), with the values they exchange.
 * A backend (pixquota-redis) implements them and runs their contract suites from the core's test jar. Depends on no
 * other package of the project but {@code internal}.
 */
package io.pixquota.throttle.store;
