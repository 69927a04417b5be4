/**
 * The throttle for Spring WebFlux's {@code WebClient}:
 * {@link io.pixquota.throttle.webclient.ThrottlingExchangeFilterFunction}. Needs only pixquota-core and the
 * application's spring-webflux.
 */
package io.pixquota.throttle.webclient;
