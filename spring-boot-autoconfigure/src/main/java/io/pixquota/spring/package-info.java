/** Spring integration of the shared quota: {@link io.pixquota.spring.ThrottlingClientHttpRequestInterceptor}. */
package io.pixquota.spring;

