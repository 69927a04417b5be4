package io.pixquota.snippets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a user of the SDK reads, as the checks of this module see it: README.md, CONTRIBUTING.md, {@code docs/*.md}
 * and the examples' READMEs, from the repository's root. CHANGELOG.md is history, and kept out.
 */
final class UserDocs {
  /** The repository's root, from this module's directory (where Maven runs its tests). */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private UserDocs() {}

  /** Every user doc, sorted, as paths under {@link #ROOT}. */
  static List<Path> all() {
    List<Path> docs = new ArrayList<>();
    for (String top : new String[] {"README.md", "CONTRIBUTING.md"}) {
      if (Files.exists(ROOT.resolve(top))) {
        docs.add(ROOT.resolve(top));
      }
    }
    docs.addAll(markdown(ROOT.resolve("docs")));
    try (Stream<Path> examples = Files.list(ROOT.resolve("examples"))) {
      examples.map(e -> e.resolve("README.md")).filter(Files::exists).sorted().forEach(docs::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return docs;
  }

  private static List<Path> markdown(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".md")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code file} as the problems name it: relative to the root, with '/'. */
  static String name(Path file) {
    return ROOT.relativize(file.toAbsolutePath().normalize()).toString().replace('\\', '/');
  }
}
