package io.pixquota.bacen;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The SDK's layers, across its modules (this module sees them all): the core under the adapters, each adapter
 * knowing only the core, the PIX client on top, and no cycle between any two packages.
 */
class LayeringTest {
  private static final JavaClasses SDK = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(location -> !location.contains("-tests.jar")) // the modules' published test fixtures
      .importPackages("io.pixquota.throttle",
          "io.pixquota.bacen");

  @Test
  void noPackageOfTheSdkIsInACycle() {
    assertThat(SDK.size()).as("classes of the core, both adapters and the PIX client").isGreaterThan(80);
    slices().matching("io.pixquota.(**)").should().beFreeOfCycles().check(SDK);
  }

  @Test
  void eachAdapterKnowsTheCoreOnly() {
    noClasses().that().resideInAPackage("io.pixquota.throttle.redis..").should().dependOnClassesThat()
        .resideInAnyPackage("io.pixquota.throttle.okhttp..", "io.pixquota.bacen..", "okhttp3..")
        .check(SDK);
    noClasses().that().resideInAPackage("io.pixquota.throttle.okhttp..").should().dependOnClassesThat()
        .resideInAnyPackage("io.pixquota.throttle.redis..", "io.pixquota.bacen..", "org.redisson..")
        .check(SDK);
    noClasses().that().resideInAnyPackage("io.pixquota.throttle", "io.pixquota.throttle.internal..",
        "io.pixquota.throttle.plan..", "io.pixquota.throttle.store..", "io.pixquota.throttle.support..")
        .should().dependOnClassesThat()
        .resideInAnyPackage("io.pixquota.throttle.redis..", "io.pixquota.throttle.okhttp..", "io.pixquota.bacen..")
        .check(SDK);
  }

  /**
   * {@code internal} is the core's and the Redis store's shared machinery (the steps the scripts mirror): no client,
   * adapter or other module may build on it; what they share with the core is public, in {@code support}.
   */
  @Test
  void onlyTheCoreAndTheRedisStoreUseInternal() {
    noClasses().that().resideOutsideOfPackages("io.pixquota.throttle", "io.pixquota.throttle.store..",
        "io.pixquota.throttle.internal..", "io.pixquota.throttle.plan..", "io.pixquota.throttle.redis..")
        .should().dependOnClassesThat().resideInAPackage("io.pixquota.throttle.internal..")
        .check(SDK);
  }
}
