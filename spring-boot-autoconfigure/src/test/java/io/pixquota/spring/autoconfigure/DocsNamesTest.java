package io.pixquota.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README's and {@code docs/}'s names are the code's: every {@code pixquota.*} property in backticks is one the
 * starter binds (its configuration metadata; a quota's own settings, which sit under a map, by its properties class),
 * and every Java name in backticks ({@code PixClient.Builder.okHttpClient(...)}) is a class of this repository whose
 * file has each member named after it, an alert of {@code docs/prometheus-rules.yml}, or a library's, listed below. A
 * rename that leaves a doc behind fails the build, naming the file and the name.
 */
class DocsNamesTest {
  private static final Path ROOT = Path.of("..");
  private static final Pattern CODE = Pattern.compile("`([^`\\n]+)`");
  private static final Pattern PROPERTY = Pattern.compile("pixquota\\.[a-z0-9.<>*-]*");
  private static final Pattern QUOTA = Pattern.compile("pixquota\\.(?:quotas|configs)\\.[^.]+(?:\\.(.+))?");
  private static final Pattern JAVA = Pattern.compile(
      "([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)((?:[.#][A-Za-z_][A-Za-z0-9_]*)*)(?:\\(.*\\))?");
  /** Names of the JDK's and libraries' the docs mention: not ours, so not checked against our sources. */
  private static final Set<String> LIBRARIES = Set.of("ArithmeticException", "ByteBufUtil",
      "ClientHttpRequestExecution", "CompletableFuture", "ConnectException", "ExchangeFilterFunction",
      "FunctionCounter", "HttpClient", "IllegalArgumentException", "IllegalStateException", "InterruptedIOException",
      "KeyManagerFactory", "MeterRegistry", "NoClassDefFoundError", "NoRouteToHostException", "NullPointerException",
      "ObservationRegistry", "OkHttpClient", "PortUnreachableException", "RateLimiter", "RateType", "RedissonClient",
      "RestClient", "RestTemplate", "ThreadMXBean", "UncheckedIOException", "UnknownHostException",
      "VirtualThreadPinned", "WebClient", "WebClientCustomizer", "SSLContext", "SSLHandshakeException", "Call",
      "Request", "Response", "Mono", "Context", "Thread", "Double", "JSONObject", "RBatch", "RRateLimiter",
      "Authenticator", "LettuceConnectionFactory", "RedisClient", "RedisClusterClient", // Lettuce's
      // DICT's and the provider's words, and the Prometheus rules' labels
      "FileLength", "RateLimit", "RateLimited", "PoolFull", "ServicoIndisponivel");
  /** What the docs call by a property's shape but is not one: the wait's observation name, a Maven property. */
  private static final Set<String> NOT_PROPERTIES = Set.of("pixquota.wait", "pixquota.publish.skip");

  private final Set<String> metadata = metadata();
  private final Map<String, String> sources = sources();
  private final String alerts = read(ROOT.resolve("docs/prometheus-rules.yml"));

  @Test
  void everyPropertyAndJavaNameTheDocsGiveExists() throws IOException {
    List<String> problems = new ArrayList<>();
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      for (Path doc : Stream.concat(Stream.of(ROOT.resolve("README.md")),
          docs.filter(p -> p.toString().endsWith(".md")).sorted()).toList()) {
        problems(read(doc)).forEach(p -> problems.add(ROOT.relativize(doc) + ": " + p));
      }
    }
    assertThat(problems).as("names in the docs that the code does not have").isEmpty();
  }

  @Test
  void aMadeUpNameIsFound() {
    assertThat(problems("`pixquota.quotas.pix.provider-quotas` `pixquota.bucket.plan-jiter` `pixquota.nope` "
        + "`PixClient.getPixx` `ThrottleBuildr.maxWait` `PixClient.Builder.okHttpClient(client)` "
        + "`pixquota.quotas.<name>.dict.base-url` `pixquota.configs.default` `PixQuotaPoolFull`"))
        .containsExactly("pixquota.quotas.pix.provider-quotas", "pixquota.bucket.plan-jiter", "pixquota.nope",
            "PixClient.getPixx", "ThrottleBuildr.maxWait");
  }

  /** The names in {@code text}'s code spans that the code does not have. */
  private List<String> problems(String text) {
    List<String> problems = new ArrayList<>();
    Matcher code = CODE.matcher(text);
    while (code.find()) {
      String span = code.group(1).trim();
      Matcher property = PROPERTY.matcher(span);
      if (span.startsWith("pixquota.") && property.lookingAt()) {
        String name = property.group().replaceAll("\\.\\*$|\\.$", "");
        if (!propertyExists(name)) {
          problems.add(name);
        }
        continue;
      }
      Matcher java = JAVA.matcher(span);
      if (java.matches() && !javaExists(java.group(1), java.group(2))) {
        problems.add(java.group(1) + java.group(2));
      }
    }
    return problems;
  }

  private boolean propertyExists(String name) {
    if (NOT_PROPERTIES.contains(name) || name.equals("pixquota")) {
      return true;
    }
    Matcher quota = QUOTA.matcher(name);
    if (quota.matches()) {
      String setting = quota.group(1);
      return setting == null || setting.equals("*") || setting(PixQuotaQuotaProperties.class, setting);
    }
    return metadata.contains(name) || metadata.stream().anyMatch(m -> m.startsWith(name + "."));
  }

  /** Whether {@code type} binds {@code path} (kebab case; a nested group's settings after a dot). */
  private static boolean setting(Class<?> type, String path) {
    int dot = path.indexOf('.');
    String first = dot < 0 ? path : path.substring(0, dot);
    for (Method m : type.getMethods()) {
      if (m.getName().startsWith("get") && m.getParameterCount() == 0
          && kebab(m.getName().substring(3)).equals(first)) {
        return dot < 0 || setting(m.getReturnType(), path.substring(dot + 1));
      }
    }
    return false;
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  private boolean javaExists(String type, String members) {
    String source = sources.get(type);
    if (source == null) {
      return LIBRARIES.contains(type) || alerts.contains("alert: " + type);
    }
    for (String member : members.split("[.#]")) {
      if (!member.isEmpty() && !declares(source, member)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code source} declares {@code member}: a method or constructor (or calls one of that name: an inherited
   * method), a nested type, a field or constant, an enum constant, or a record's component.
   */
  private static boolean declares(String source, String member) {
    String m = Pattern.quote(member);
    return Pattern.compile("\\b" + m + "\\s*\\(|\\b(?:class|interface|record|enum)\\s+" + m + "\\b|\\b" + m
        + "\\s*[=;]|^\\s*" + m + "\\s*(?:[,;(]|$)|\\brecord\\s+\\w+\\s*\\([^)]*\\b" + m + "\\s*[,)]",
        Pattern.MULTILINE).matcher(source).find();
  }

  /** Every property name the starter's configuration metadata lists. */
  private static Set<String> metadata() {
    Set<String> names = new HashSet<>();
    try (InputStream in = DocsNamesTest.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      JsonNode root = new ObjectMapper().readTree(in);
      root.path("properties").forEach(p -> names.add(p.path("name").asText()));
      root.path("groups").forEach(g -> names.add(g.path("name").asText()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(names).as("the starter's configuration metadata").contains("pixquota.max-wait");
    return names;
  }

  /** This repository's Java sources by simple name (main and test; nothing built). */
  private static Map<String, String> sources() {
    Map<String, String> byName = new HashMap<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      files.filter(p -> p.toString().endsWith(".java") && !p.toString().contains("/target/")
          && !p.toString().contains("/.git/")).forEach(p -> byName.merge(p.getFileName().toString()
              .replace(".java", ""), read(p), String::concat));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return byName;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
