package io.pixquota.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the user docs resolves: its file exists, and its {@code #anchor}, in a Markdown file, is an
 * explicit {@code <a id="...">} there or one of its headings as GitHub names them. A renamed section or a moved file
 * fails here, naming the link.
 */
class DocLinksResolveTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern ID = Pattern.compile("<a id=\"([^\"]+)\"></a>");
  private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$", Pattern.MULTILINE);

  @Test
  void everyRelativeLinkAndAnchorResolves() {
    List<String> problems = new ArrayList<>();
    for (Path doc : UserDocs.all()) {
      Matcher link = LINK.matcher(UserDocs.read(doc));
      while (link.find()) {
        String target = link.group(1);
        if (target.matches("^[a-z]+:.*")) {
          continue; // http(s), mailto
        }
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!Files.exists(resolved)) {
          problems.add(UserDocs.name(doc) + ": " + target + ": no such file");
        } else if (hash >= 0 && resolved.toString().endsWith(".md")
            && !anchors(UserDocs.read(resolved)).contains(target.substring(hash + 1))) {
          problems.add(UserDocs.name(doc) + ": " + target + ": no such anchor in " + UserDocs.name(resolved));
        }
      }
    }
    assertThat(problems).as("links of the user docs that lead nowhere").isEmpty();
  }

  @Test
  void anchorsAreExplicitIdsAndGitHubsHeadingNames() {
    assertThat(anchors("<a id=\"decision-cost\"></a>\n## Spring Boot: `pixquota.*` properties\n"))
        .contains("decision-cost", "spring-boot-pixquota-properties");
  }

  /** The anchors a Markdown text has: explicit ids, and each heading's GitHub slug. */
  static Set<String> anchors(String markdown) {
    Set<String> anchors = new HashSet<>();
    Matcher id = ID.matcher(markdown);
    while (id.find()) {
      anchors.add(id.group(1));
    }
    Matcher heading = HEADING.matcher(markdown);
    while (heading.find()) {
      anchors.add(heading.group(1).strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "")
          .replace(' ', '-'));
    }
    return anchors;
  }
}
