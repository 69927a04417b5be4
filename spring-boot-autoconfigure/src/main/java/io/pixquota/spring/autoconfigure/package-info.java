/**
 * Spring Boot auto-configuration of the shared quota ({@code pixquota.*} properties): the beans, their lifecycle,
 * the actuator health indicator and the {@code pixquota} endpoint.
 */
package io.pixquota.spring.autoconfigure;

