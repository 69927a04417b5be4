package io.pixquota.throttle;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A published module's API, written as text and kept in {@code api/<artifact>.api} beside its pom (as OkHttp keeps
 * its {@code .api} files): every public type outside {@code internal} packages, with its public and protected
 * members' signatures. A module's {@code PublicApiTest} compares what it compiled with the file: a change a user's
 * code would see fails the build until the file is updated ({@code -Dpixquota.api.update=true}) and the change is
 * in CHANGELOG.md. Published in pixquota-core's test jar.
 */
public final class ApiDump {
  private ApiDump() {}

  /** Fails, listing what changed, when the classes in {@code target/classes} no longer match {@code api/<name>.api}. */
  public static void check(String artifact) throws IOException {
    Path file = Path.of("api", artifact + ".api");
    List<String> now = dump(Path.of("target", "classes"));
    if (Boolean.getBoolean("pixquota.api.update")) {
      Files.createDirectories(file.getParent());
      Files.write(file, now, StandardCharsets.UTF_8);
      return;
    }
    List<String> kept = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    if (!kept.equals(now)) {
      Set<String> removed = new LinkedHashSet<>(kept);
      removed.removeAll(now);
      Set<String> added = new LinkedHashSet<>(now);
      added.removeAll(kept);
      StringBuilder diff = new StringBuilder();
      removed.forEach(l -> diff.append("\n- ").append(l));
      added.forEach(l -> diff.append("\n+ ").append(l));
      throw new AssertionError("the public API of " + artifact + " changed; if that is meant, run the module's tests "
          + "with -Dpixquota.api.update=true, commit " + file + " and say what a user changes in CHANGELOG.md:"
          + diff);
    }
  }

  /** The API of the classes under {@code classes}, one line a type or member, sorted. */
  static List<String> dump(Path classes) throws IOException {
    List<String> names = new ArrayList<>();
    try (Stream<Path> files = Files.walk(classes)) {
      files.filter(p -> p.toString().endsWith(".class")).forEach(p -> {
        String name = classes.relativize(p).toString().replace('/', '.').replace('\\', '.');
        names.add(name.substring(0, name.length() - ".class".length()));
      });
    }
    Set<String> lines = new TreeSet<>();
    for (String name : names) {
      if (name.contains(".internal.") || name.endsWith("package-info") || name.endsWith("module-info")) {
        continue;
      }
      Class<?> c;
      try {
        c = Class.forName(name, false, ApiDump.class.getClassLoader());
        c.getDeclaredMethods(); // links what its signatures name
      } catch (ClassNotFoundException | LinkageError e) {
        // a class for another version of a framework than the tests run (Spring Boot 4's beside 3's): kept by name
        lines.add(name + ": (its members name classes not on this class path: " + e + ")");
        continue;
      }
      if (!visible(c)) {
        continue;
      }
      lines.add(c.getName() + ": " + Modifier.toString(c.getModifiers()) + " " + kind(c)
          + (c.getGenericSuperclass() == null || c.getSuperclass() == Object.class || c.isEnum() || c.isRecord()
              ? "" : " extends " + c.getGenericSuperclass().getTypeName())
          + (c.getGenericInterfaces().length == 0 ? "" : " implements " + String.join(", ",
              Stream.of(c.getGenericInterfaces()).map(t -> t.getTypeName()).toList())));
      for (Constructor<?> k : c.getDeclaredConstructors()) {
        member(lines, c, k, k.toGenericString());
      }
      for (Method m : c.getDeclaredMethods()) {
        if (!m.isSynthetic() && !m.isBridge()) {
          member(lines, c, m, m.toGenericString());
        }
      }
      for (Field f : c.getDeclaredFields()) {
        if (!f.isSynthetic()) {
          member(lines, c, f, f.toGenericString());
        }
      }
    }
    return new ArrayList<>(lines);
  }

  private static void member(Set<String> lines, Class<?> owner, Member m, String signature) {
    int mod = m.getModifiers();
    if (Modifier.isPublic(mod) || (Modifier.isProtected(mod) && !Modifier.isFinal(owner.getModifiers()))) {
      lines.add(owner.getName() + ":   " + signature);
    }
  }

  private static boolean visible(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
      if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass() || k.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  private static String kind(Class<?> c) {
    return c.isAnnotation() ? "@interface" : c.isInterface() ? "interface" : c.isEnum() ? "enum"
        : c.isRecord() ? "record" : "class";
  }
}
