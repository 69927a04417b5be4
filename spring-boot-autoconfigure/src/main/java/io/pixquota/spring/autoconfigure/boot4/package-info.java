/** The health indicator in Spring Boot 4's health API; used only on Spring Boot 4. */
package io.pixquota.spring.autoconfigure.boot4;

