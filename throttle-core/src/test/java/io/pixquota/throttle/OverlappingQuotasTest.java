package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Quotas that overlap: a request goes to the most specific quota that matches it, whatever the order they were
 * declared in (a catch-all declared above API Pix's does not take API Pix's calls); two that may take the same request
 * and are equally specific are refused at build, naming both. Counted at each quota's bucket.
 */
class OverlappingQuotasTest {
  private final FakeTime time = FakeTime.autoAdvancing(1_000);

  private CountingBucket bucket(String name) {
    return new CountingBucket(new LocalTokenBucket(name, List.of(Limit.of(1_000, 1)), time::nanoTime));
  }

  private static ThrottleRequest to(String host, String path) {
    return ThrottleRequest.of("GET", path).withHost(host);
  }

  /** Which bucket each request spent a token of, with the quotas declared in the given order. */
  private Map<String, String> taken(List<String> order) throws Exception {
    Map<String, CountingBucket> buckets = Map.of("wide", bucket("wide"), "pix", bucket("pix"), "devolucao",
        bucket("devolucao"));
    Map<String, UnaryOperator<ThrottleBuilder>> quotas = Map.of(
        "wide", b -> b.quota("wide", Match.any().path("/api/.*"), buckets.get("wide"), 1),
        "pix", b -> b.quota("pix", Match.host("pix.example").path("/api/v2/.*"), buckets.get("pix"), 1),
        "devolucao", b -> b.quota("devolucao", Match.host("pix.example").path("/api/v2/pix/[^/]+/devolucao/.*"),
            buckets.get("devolucao"), 1));
    ThrottleBuilder builder = ThrottleTesting.onTime(Throttle.builder(), time).maxWait(Duration.ZERO);
    for (String name : order) {
      builder = quotas.get(name).apply(builder);
    }
    Throttle throttle = builder.build();
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (ThrottleRequest r : List.of(to("pix.example", "/api/v2/pix/E1"), to("pix.example", "/api/v1/x"),
        to("other.example", "/api/v2/pix/E1"), to("pix.example", "/api/v2/pix/E1/devolucao/D1"))) {
      Map<String, Integer> before = new java.util.HashMap<>();
      buckets.forEach((name, b) -> before.put(name, b.asked.get()));
      throttle.exchange(r, Answering.status(200));
      buckets.forEach((name, b) -> {
        if (b.asked.get() > before.get(name)) {
          out.put(r.host() + r.encodedPath(), name);
        }
      });
    }
    return out;
  }

  @Test
  void aRequestGoesToTheMostSpecificQuotaWhateverTheOrderOfDeclaration() throws Exception {
    Map<String, String> expected = Map.of("pix.example/api/v2/pix/E1", "pix", "pix.example/api/v1/x", "wide",
        "other.example/api/v2/pix/E1", "wide", "pix.example/api/v2/pix/E1/devolucao/D1", "devolucao");
    for (List<String> order : permutations(List.of("wide", "pix", "devolucao"))) {
      assertThat(taken(order)).as("declared %s", order).isEqualTo(expected);
    }
    Throttle t = ThrottleTesting.onTime(Throttle.builder(), time)
        .quota("wide", Match.any().path("/api/.*"), bucket("wide"), 1)
        .quota("pix", Match.host("pix.example").path("/api/v2/.*"), bucket("pix"), 1).build();
    assertThat(t.routing()).as("the order a request tries them, for /actuator/pixquota").containsExactly(
        "quota 'pix': pix.example /api/v2/.*", "quota 'wide': any host /api/.*");
  }

  @Test
  void quotasThatMayTakeTheSameRequestsAndAreEquallySpecificAreRefusedNamingBoth() {
    assertThatThrownBy(() -> ThrottleTesting.onTime(Throttle.builder(), time)
        .quota("pix", Match.host("pix.example").path("/api/v2/.*"), bucket("pix"), 1)
        .quota("pix-again", Match.host("pix.example").path("/api/v2/.*"), bucket("again"), 1).build())
        .as("one shadows the other entirely").isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("quota 'pix' (pix.example /api/v2/.*) and quota 'pix-again' (pix.example /api/v2/.*) "
            + "may take the same requests, and neither is more specific");
    assertThatThrownBy(() -> ThrottleTesting.onTime(Throttle.builder(), time)
        .quota("a", Match.any().path("/api/v2/pix/.*"), bucket("a"), 1)
        .quota("b", Match.any().path("/api/v2/.*/cob"), bucket("b"), 1).build())
        .as("the same literal count: /api/v2/pix/E1/cob would match both").isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("quota 'a'").hasMessageContaining("quota 'b'");
    // apart: another host, another method, a literal beginning neither starts the other's
    ThrottleTesting.onTime(Throttle.builder(), time)
        .quota("pix", Match.host("pix.example").path("/api/v2/.*"), bucket("pix"), 1)
        .quota("spi", Match.host("spi.example").path("/api/v2/.*"), bucket("spi"), 1)
        .quota("get", Match.host("x.example").method("GET").path("/a/.*"), bucket("get"), 1)
        .quota("post", Match.host("x.example").method("POST").path("/a/.*"), bucket("post"), 1)
        .quota("cob", Match.any().path("/cob/.*"), bucket("cob"), 1)
        .quota("cobv", Match.any().path("/pix/.*"), bucket("cobv"), 1).build();
  }

  @Test
  void theLiteralBeginningAndCountOfAPathAreWhatItMustMatch() {
    java.util.regex.Pattern p = java.util.regex.Pattern.compile("/api/v2/pix/[^/]+/devolucao/.*");
    assertThat(Specificity.prefix(p)).isEqualTo("/api/v2/pix/");
    assertThat(Specificity.literals(p)).isEqualTo(23);
    assertThat(Specificity.prefix(java.util.regex.Pattern.compile("/apix?/.*"))).isEqualTo("/api");
    assertThat(Specificity.literals(java.util.regex.Pattern.compile("/apix?/.*"))).isEqualTo(5);
    assertThat(Specificity.prefix(java.util.regex.Pattern.compile("/a/.*|/b/.*"))).isEmpty();
    assertThat(Specificity.literals(java.util.regex.Pattern.compile("/a/.*|/b/.*"))).isZero();
    assertThat(Specificity.literals(java.util.regex.Pattern.compile("/v\\d{2}/x"))).isEqualTo(4);
  }

  private static List<List<String>> permutations(List<String> items) {
    if (items.size() <= 1) {
      return List.of(items);
    }
    List<List<String>> out = new ArrayList<>();
    for (String first : items) {
      List<String> rest = new ArrayList<>(items);
      rest.remove(first);
      for (List<String> tail : permutations(rest)) {
        List<String> one = new ArrayList<>();
        one.add(first);
        one.addAll(tail);
        out.add(one);
      }
    }
    return out;
  }
}
