package io.pixquota.throttle.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The core knows no transport and no store, and its packages form no cycle. The Maven Enforcer keeps OkHttp,
 * Redisson, Jackson, Spring and Reactor off the core's class path (pixquota-core's pom); these rules keep its classes
 * from naming them, and the last test shows the first rule failing on a class that does.
 */
class CoreLayeringTest {
  /** What the core may not depend on. */
  static final ArchRule KNOWS_NO_TRANSPORT_AND_NO_STORE = noClasses().that().resideInAPackage("io.pixquota.throttle..")
      .should().dependOnClassesThat().resideInAnyPackage("okhttp3..", "okio..", "kotlin..", "org.redisson..",
          "io.netty..", "com.fasterxml..", "org.springframework..", "reactor..")
      .because("the core knows no transport and no store: adapters live in pixquota-okhttp, pixquota-redis, the "
          + "Spring starter and bacen-client (docs/architecture.md)");

  /** internal knows only support: the stores and the engine depend on it, never the other way round. */
  static final ArchRule INTERNAL_IS_A_LEAF = noClasses().that().resideInAPackage("io.pixquota.throttle.internal..")
      .should().dependOnClassesThat().resideInAnyPackage("io.pixquota.throttle", "io.pixquota.throttle.plan..",
          "io.pixquota.throttle.store..");

  /** The store SPIs and the local stores know nothing of the API a service calls, nor of the engine. */
  static final ArchRule STORES_KNOW_NOT_THE_API = noClasses().that().resideInAPackage("io.pixquota.throttle.store..")
      .should().dependOnClassesThat().resideInAnyPackage("io.pixquota.throttle", "io.pixquota.throttle.plan..");

  /** support is the leaf of leaves: every package may use it, it uses none. */
  static final ArchRule SUPPORT_IS_A_LEAF = noClasses().that().resideInAPackage("io.pixquota.throttle.support..")
      .should().dependOnClassesThat().resideInAnyPackage("io.pixquota.throttle", "io.pixquota.throttle.plan..",
          "io.pixquota.throttle.store..", "io.pixquota.throttle.internal..");

  private static final JavaClasses CORE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(location -> !location.contains("-tests.jar")) // the modules' published test fixtures
      .importPackages("io.pixquota.throttle");

  @Test
  void theCoreKnowsNoTransportAndNoStore() {
    assertThat(CORE.size()).as("the core's classes were found").isGreaterThan(30);
    KNOWS_NO_TRANSPORT_AND_NO_STORE.check(CORE);
  }

  @Test
  void theCoresPackagesFormNoCycleAndEachRoomKnowsOnlyTheOnesBelow() {
    slices().matching("io.pixquota.(**)").should().beFreeOfCycles().check(CORE);
    INTERNAL_IS_A_LEAF.check(CORE);
    STORES_KNOW_NOT_THE_API.check(CORE);
    SUPPORT_IS_A_LEAF.check(CORE);
  }

  /**
   * A deliberate violation: a class of the core's package that holds an {@code okhttp3.Call}, compiled now against a
   * stub of it, fails the rule, naming the dependency.
   */
  @Test
  void aCoreClassThatNamesOkHttpFailsTheRule(@TempDir Path dir) throws IOException {
    Path src = dir.resolve("src");
    write(src.resolve("okhttp3/Call.java"), "package okhttp3; public interface Call {}");
    write(src.resolve("io/pixquota/throttle/Violation.java"),
        "package io.pixquota.throttle; public final class Violation { okhttp3.Call call; }");
    Path out = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int exit = javac.run(null, null, null, "-d", out.toString(), src.resolve("okhttp3/Call.java").toString(),
        src.resolve("io/pixquota/throttle/Violation.java").toString());
    assertThat(exit).as("the fixture compiles").isZero();
    JavaClasses violating = new ClassFileImporter().importPath(out);
    assertThatThrownBy(() -> KNOWS_NO_TRANSPORT_AND_NO_STORE.check(violating)).isInstanceOf(AssertionError.class)
        .hasMessageContaining("io.pixquota.throttle.Violation").hasMessageContaining("okhttp3.Call");
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, List.of(text), StandardCharsets.UTF_8);
  }
}
