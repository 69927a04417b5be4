package io.pixquota.snippets;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Markdown file's code blocks against their sources. A block is mapped to its source by the line right above its
 * opening fence, {@code <!-- snippet: path -->} (the whole file) or {@code <!-- snippet: path#name -->} (the lines
 * between {@code // region name} and {@code // endregion}, their common indentation taken off), the path from the
 * repository's root; the line under its closing fence links the source for readers, as a path relative to the doc.
 * A mapped block must be its source as it is; a {@code java} block must be mapped. Other languages (a shell session,
 * a diagram) are not checked.
 */
final class Snippets {
  private static final Pattern OPEN = Pattern.compile("^```([A-Za-z0-9]*)\\s*$");
  private static final Pattern MARKER = Pattern.compile("^<!-- snippet: ([^#\\s]+)(?:#([A-Za-z0-9_-]+))? -->$");
  /** Blocks of these languages must each name their source. */
  private static final Set<String> MUST_MAP = Set.of("java");

  private Snippets() {}

  /** One mapped or unmapped block: its language, its first line's number (1-based) and its text. */
  record Block(String language, int line, String text, String source, String region, String below) {}

  /** The code blocks of {@code markdown}, with what names their source and the line under each. */
  static List<Block> blocks(String markdown) {
    String[] lines = markdown.split("\n", -1);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.length; i++) {
      Matcher open = OPEN.matcher(lines[i]);
      if (!open.matches()) {
        continue;
      }
      int close = i + 1;
      while (close < lines.length && !lines[close].strip().equals("```")) {
        close++;
      }
      Matcher marker = i > 0 ? MARKER.matcher(lines[i - 1].strip()) : MARKER.matcher("");
      boolean mapped = marker.matches();
      String text = String.join("\n", Arrays.asList(lines).subList(i + 1, Math.min(close, lines.length)));
      String below = close + 1 < lines.length ? lines[close + 1] : "";
      blocks.add(new Block(open.group(1), i + 2, text, mapped ? marker.group(1) : null,
          mapped ? marker.group(2) : null, below));
      i = close;
    }
    return blocks;
  }

  /**
   * What is wrong with {@code doc}'s blocks (an empty list when nothing is): each problem names the doc and the line.
   *
   * @param root the repository's root, which sources are named from
   * @param doc  the Markdown file, under {@code root}
   */
  static List<String> problems(Path root, Path doc, String markdown) {
    List<String> problems = new ArrayList<>();
    String where = root.relativize(doc).toString().replace('\\', '/');
    for (Block b : blocks(markdown)) {
      String at = where + ":" + b.line() + ": ";
      if (b.source() == null) {
        if (MUST_MAP.contains(b.language())) {
          problems.add(at + "a " + b.language() + " block without <!-- snippet: path#region --> above it");
        }
        continue;
      }
      Path source = root.resolve(b.source());
      if (!Files.isRegularFile(source)) {
        problems.add(at + "its source " + b.source() + " does not exist");
        continue;
      }
      String expected = b.region() == null ? UserDocs.read(source).stripTrailing()
          : region(UserDocs.read(source), b.region());
      if (expected == null) {
        problems.add(at + b.source() + " has no region '" + b.region() + "' (// region " + b.region()
            + " ... // endregion)");
        continue;
      }
      String difference = difference(b.text().stripTrailing(), expected);
      if (difference != null) {
        problems.add(at + "differs from " + b.source() + (b.region() != null ? "#" + b.region() : "") + ": "
            + difference);
      }
      String link = doc.getParent().relativize(source).toString().replace('\\', '/');
      if (!b.below().contains("](" + link + ")") && !b.below().contains("](" + link + "#")) {
        problems.add(at + "the line under the block does not link its source, (" + link + ")");
      }
    }
    return problems;
  }

  /** The lines between {@code // region name} and the next {@code // endregion}, less their common indentation. */
  static String region(String source, String name) {
    String[] lines = source.split("\n", -1);
    int start = -1;
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].strip().equals("// region " + name)) {
        start = i + 1;
        break;
      }
    }
    if (start < 0) {
      return null;
    }
    int end = start;
    while (end < lines.length && !lines[end].strip().equals("// endregion")) {
      end++;
    }
    if (end == lines.length) {
      return null;
    }
    List<String> body = Arrays.asList(lines).subList(start, end);
    int indent = body.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
        .min().orElse(0);
    return String.join("\n", body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList())
        .stripTrailing();
  }

  /** Null when equal; else the first line that differs, in both. */
  private static String difference(String block, String source) {
    if (block.equals(source)) {
      return null;
    }
    String[] a = block.split("\n", -1);
    String[] b = source.split("\n", -1);
    for (int i = 0; i < Math.max(a.length, b.length); i++) {
      String x = i < a.length ? a[i] : "(nothing)";
      String y = i < b.length ? b[i] : "(nothing)";
      if (!x.equals(y)) {
        return "its line " + (i + 1) + " reads\n    " + x + "\n  where the source has\n    " + y;
      }
    }
    return "they differ in white space";
  }
}
