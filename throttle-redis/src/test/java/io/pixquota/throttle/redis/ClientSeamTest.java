package io.pixquota.throttle.redis;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The seam between the store and its clients: only the two adapters know a client's API, only the public entries and
 * the holders that build clients name a client's types, and no class but Lettuce's side names Lettuce (nor Redisson's
 * side Redisson), so that a service loads only the client it uses.
 */
class ClientSeamTest {
  private static final JavaClasses STORE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.pixquota.throttle.redis");
  private static final String PACKAGE = "io\\.pixquota\\.throttle\\.redis\\.";

  @Test
  void onlyRedissonsSideNamesRedisson() {
    noClasses().that().haveNameNotMatching(PACKAGE + "(internal\\.RedissonScripts|RedissonStore|RedissonClients"
        + "|RedisAddress|RedisTokenBucket|RedisBucketGroup|RedisPermitPool)(\\$.*)?")
        .should().dependOnClassesThat().resideInAnyPackage("org.redisson..")
        .because("Redisson is an optional dependency: the internal classes see it through ScriptClient only, and "
            + "the RedissonClient factories are the public entries kept for existing callers")
        .check(STORE);
  }

  @Test
  void onlyLettucesSideNamesLettuce() {
    noClasses().that().haveNameNotMatching(PACKAGE + "(internal\\.LettuceScripts|LettuceStore|LettuceClients"
        + "|RedisAddress)(\\$.*)?")
        .should().dependOnClassesThat().resideInAnyPackage("io.lettuce..")
        .because("Lettuce is an optional dependency: the store sees it through ScriptClient only")
        .check(STORE);
  }

  @Test
  void theInternalClassesJudgeFailuresByRedisFailureOnly() {
    noClasses().that().resideInAPackage("..redis.internal..")
        .and().haveNameNotMatching(PACKAGE + "internal\\.(RedissonScripts|LettuceScripts)(\\$.*)?")
        .should().dependOnClassesThat().resideInAnyPackage("org.redisson..", "io.lettuce..")
        .check(STORE);
  }
}
