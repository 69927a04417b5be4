/**
 * The throttle for OkHttp: {@link io.pixquota.throttle.okhttp.ThrottlingInterceptor}, a bridge from OkHttp's chain to
 * a {@link io.pixquota.throttle.Throttle}, and {@link io.pixquota.throttle.okhttp.ThrottledCallFactory}, whose calls
 * wait for their slot without holding a thread.
 */
package io.pixquota.throttle.okhttp;

