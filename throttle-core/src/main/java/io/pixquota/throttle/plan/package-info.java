/**
 * Client bucket settings derived from the provider's own policy, with the arithmetic that shows they stay under it:
 * {@link io.pixquota.throttle.plan.QuotaPlanner#plan} turns a {@link io.pixquota.throttle.plan.ProviderPolicy} (as
 * {@code GET /policies/{name}} reports it) into a {@link io.pixquota.throttle.plan.QuotaPlan}.
 */
package io.pixquota.throttle.plan;

