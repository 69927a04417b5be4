package io.pixquota.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * README.md, CONTRIBUTING.md, {@code docs/} and the examples' READMEs speak of the product as it is: no issue numbers,
 * no "this version" or "before the fix", no figures of builds that are gone. The history is CHANGELOG.md's (and
 * git's), which this check leaves alone. Each pattern below is one way history crept in; a new one gets a line.
 */
class DocsSpeakOfTheProductTest {
  private record Rule(Pattern pattern, String why) {}

  private static final List<Rule> RULES = List.of(
      rule("(?i)\\bissues? \\d+", "an issue number (the changelog says which change did what)"),
      rule("(?<![\\w&/#\\[-])#\\d{1,5}\\b", "an issue reference"),
      rule("(?i)\\bthis version\\b|'s version\\b|\\bthe version before\\b", "a version of the SDK's past"),
      rule("(?i)\\b(?:later|earlier) runs?\\b|\\ban earlier set\\b", "a run superseded by another"),
      rule("(?i)\\bbefore the (?:fix|change|redesign|bound|rule|issue)\\b|\\bafter the fix\\b",
          "before and after a change"),
      rule("(?i)^\\|.*\\|\\s*(?:before|after)\\b[^|]*\\|", "a table column of before and after"),
      rule("(?i)\\b[\\d.,%]+ before\\)|\\(before\\)|\\bbefore:\\s", "a figure of the build before"),
      rule("(?i)\\buntil release \\d|\\bsnapshots? before\\b|\\brelease \\d+\\.\\d+\\b", "a release of the past"),
      rule("(?i)\\bthe landed `?main`?\\b|\\bthe session's start\\b", "the project's branches and sessions"));

  private static Rule rule(String regex, String why) {
    return new Rule(Pattern.compile(regex, Pattern.MULTILINE), why);
  }

  @Test
  void theUserDocsCarryNoHistory() {
    List<String> problems = new ArrayList<>();
    for (Path doc : UserDocs.all()) {
      problems.addAll(problems(UserDocs.name(doc), UserDocs.read(doc)));
    }
    assertThat(problems).as("history in the user docs: move it to CHANGELOG.md, or say what is true now").isEmpty();
  }

  @Test
  void eachKindOfHistoryIsFoundAndTheProductsWordsAreNot() {
    String history = """
        The adaptive run (issue 43) gave 3.9 before this one; see #37.
        Issues 43, 44 changed it. Three later runs: 13-40; an earlier run gave 12.
        This version books once; issue 43's version booked twice; before the fix, 90-91.
        | figure | before | after |
        2.9 Redis round trips per call (3.9 before). Before: 9.5 s. | outcome now (before) |
        That was the default until release 0.5; users of snapshots before it.
        Measured on the landed `main`.
        """;
    assertThat(problems("x.md", history)).hasSize(16);
    String product = """
        A bad value is refused before any I/O; the call books again before its send.
        The previous layout's replicas share the bucket during a rolling deploy (layout 2 and 3).
        [benchmarks](docs/benchmarks.md#decision-cost), `okhttp#3714`, &#8212;, a CPF of 11 digits.
        | figure | value |
        """;
    assertThat(problems("x.md", product)).isEmpty();
  }

  private static List<String> problems(String name, String text) {
    List<String> problems = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      for (Rule rule : RULES) {
        Matcher m = rule.pattern().matcher(lines[i]);
        while (m.find()) {
          problems.add(name + ":" + (i + 1) + ": \"" + m.group().strip() + "\": " + rule.why());
        }
      }
    }
    return problems;
  }
}
