/**
 * The throttle for Spring's {@code RestClient} and {@code RestTemplate}:
 * {@link io.pixquota.throttle.restclient.ThrottlingClientHttpRequestInterceptor}. Needs only pixquota-core and the
 * application's spring-web.
 */
package io.pixquota.throttle.restclient;
