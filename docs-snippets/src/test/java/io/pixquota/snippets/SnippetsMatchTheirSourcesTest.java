package io.pixquota.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet a user reads compiles: each {@code java} block of README.md, CONTRIBUTING.md, {@code docs/} and
 * the examples' READMEs is a region of a source file the build compiles (this module's, or consumer-check's quick
 * start, which the build also runs), as it is; so are the quick start's {@code xml} and {@code yaml} blocks, which
 * name their files the same way. Change a snippet in one place and this fails until the other says the same.
 */
class SnippetsMatchTheirSourcesTest {

  @Test
  void everySnippetOfTheUserDocsIsItsSourceAsItIs() {
    List<String> problems = new ArrayList<>();
    int mapped = 0;
    for (Path doc : UserDocs.all()) {
      String text = UserDocs.read(doc);
      problems.addAll(Snippets.problems(UserDocs.ROOT, doc, text));
      mapped += (int) Snippets.blocks(text).stream().filter(b -> b.source() != null).count();
    }
    assertThat(problems).as("snippets that are not their sources").isEmpty();
    assertThat(mapped).as("blocks checked against a source").isGreaterThanOrEqualTo(8);
  }

  @Test
  void theQuickStartIsConsumerChecksProjectFileForFile() {
    List<String> sources = Snippets.blocks(UserDocs.read(UserDocs.ROOT.resolve("README.md"))).stream()
        .map(Snippets.Block::source).filter(s -> s != null && s.startsWith("consumer-check/src/it/quick-start/"))
        .toList();
    assertThat(sources).as("the README's quick start: the project consumer-check builds and runs")
        .contains("consumer-check/src/it/quick-start/pom.xml",
            "consumer-check/src/it/quick-start/src/main/resources/application.yml",
            "consumer-check/src/it/quick-start/src/main/java/com/example/pixstatus/PixStatusApplication.java");
  }

  @Test
  void anUnmappedJavaBlockAChangedLineAndAMissingLinkAreFound(@TempDir Path root) throws IOException {
    Files.createDirectories(root.resolve("src"));
    Files.writeString(root.resolve("src/A.java"), """
        class A {
          void a() {
            // region call
            int x = 1;
            int y = x + 1;
            // endregion
          }
        }
        """);
    Files.createDirectories(root.resolve("docs"));
    Path doc = root.resolve("docs/x.md");
    String markdown = """
        # x

        <!-- snippet: src/A.java#call -->
        ```java
        int x = 1;
        int y = x + 1;
        ```
        [A.java](../src/A.java)

        ```java
        int unmapped = 0;
        ```

        <!-- snippet: src/A.java#call -->
        ```java
        int x = 1;
        int y = x + 2;
        ```

        <!-- snippet: src/A.java#nope -->
        ```java
        int x = 1;
        ```

        ```sh
        echo not checked
        ```
        """;
    assertThat(Snippets.problems(root, doc, markdown)).hasSize(4).satisfiesExactly(
        p -> assertThat(p).startsWith("docs/x.md:11: a java block without"),
        p -> assertThat(p).startsWith("docs/x.md:16: differs from src/A.java#call: its line 2 reads")
            .contains("int y = x + 2;", "int y = x + 1;"),
        p -> assertThat(p).startsWith("docs/x.md:16: the line under the block does not link its source"),
        p -> assertThat(p).startsWith("docs/x.md:22: src/A.java has no region 'nope'"));
  }
}
