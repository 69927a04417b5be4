package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

/**
 * The demo end to end, as README's command runs it: replica JVMs, the in-process mock, Redis (REDIS_URL or the
 * embedded binary). Then the report: every SVG parses, and its bars add up to what the mock saw.
 */
class DemoRunTest {
  @TempDir
  Path dir;

  @Test
  void directOverflowsTheQuotaAndThrottledServesAllWithZero429AndTheReportMatchesTheRun() throws Exception {
    Path report = dir.resolve("demo-report.html");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DemoMain demo = new DemoMain().printTo(new PrintStream(out, true, StandardCharsets.UTF_8));
    int exit = new CommandLine(demo).setCaseInsensitiveEnumValuesAllowed(true)
        .execute("--json", "--report", report.toString());
    String printed = out.toString(StandardCharsets.UTF_8).trim();
    assertThat(exit).as(printed).isZero();
    JsonNode result = new ObjectMapper().readTree(printed);

    JsonNode direct = result.get("direct");
    assertThat(direct.get("served").asLong() + direct.get("tooManyRequests").asLong()).isEqualTo(40);
    assertThat(direct.get("served").asLong()).as("a 10-token bucket plus what refills in a burst")
        .isBetween(10L, 16L);
    assertThat(direct.get("redisRoundTripsPerCall").asDouble()).isZero();

    JsonNode throttled = result.get("throttled");
    assertThat(throttled.get("served").asLong()).isEqualTo(40);
    assertThat(throttled.get("tooManyRequests").asLong()).isZero();
    assertThat(throttled.get("elapsedMs").asLong()).as("(40 - 8) / 9 = 3.56 s, plus a little")
        .isBetween(3_500L, 5_000L);
    assertThat(throttled.get("redisRoundTripsPerCall").asDouble()).isBetween(1.0, 1.2);
    assertThat(throttled.get("providerMaxInWindow").asLong()).isLessThanOrEqualTo(20);
    assertThat(throttled.get("waitP99Ms").asLong()).isGreaterThan(2_500);

    String html = Files.readString(report);
    assertThat(html).doesNotContain("<script").doesNotContain("<link").doesNotContain("@import")
        .doesNotContain("src=");
    assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://").doesNotContain("https://");
    Map<String, Map<String, Integer>> bars = bars(html);
    assertThat(sum(bars.get("direct"))).as("every arrival at the provider is drawn").isEqualTo(40);
    assertThat(bars.get("direct").get("429")).isEqualTo(direct.get("tooManyRequests").asInt());
    assertThat(sum(bars.get("throttled"))).isEqualTo(40);
    assertThat(bars.get("throttled")).doesNotContainKey("429").containsOnlyKeys("r1", "r2");
  }

  /** Mode -> series -> total count, read from the SVG rectangles after parsing each SVG as XML. */
  static Map<String, Map<String, Integer>> bars(String html) throws Exception {
    Map<String, Map<String, Integer>> bars = new HashMap<>();
    Matcher svg = Pattern.compile("<svg .*?</svg>", Pattern.DOTALL).matcher(html);
    int svgs = 0;
    while (svg.find()) {
      svgs++;
      Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
          .parse(new ByteArrayInputStream(svg.group().getBytes(StandardCharsets.UTF_8)));
      NodeList rects = doc.getElementsByTagName("rect");
      for (int i = 0; i < rects.getLength(); i++) {
        Element rect = (Element) rects.item(i);
        if (rect.hasAttribute("data-series")) {
          bars.computeIfAbsent(rect.getAttribute("data-mode"), k -> new HashMap<>())
              .merge(rect.getAttribute("data-series"), Integer.parseInt(rect.getAttribute("data-count")),
                  Integer::sum);
        }
      }
    }
    assertThat(svgs).as("a timeline and a wait chart per mode").isEqualTo(4);
    return bars;
  }

  private static int sum(Map<String, Integer> m) {
    return m.values().stream().mapToInt(Integer::intValue).sum();
  }

  @Test
  void reportBinsArrivalsPer100MsStackedByReplica() {
    ModeResult r = new ModeResult("throttled");
    r.callsByReplica.put("r1", List.of());
    r.callsByReplica.put("r2", List.of());
    r.providerEvents = List.of(
        Map.of("atMicros", 1_000_000L, "status", 200, "replica", "r1"),
        Map.of("atMicros", 1_050_000L, "status", 200, "replica", "r2"),
        Map.of("atMicros", 1_099_999L, "status", 429, "replica", "r2"),
        Map.of("atMicros", 1_100_000L, "status", 200, "replica", "r1"),
        Map.of("atMicros", 1_350_000L, "status", 404, "replica", "r2"));
    Map<Integer, Map<String, Integer>> bins = Report.bins(r);
    assertThat(bins.get(0)).containsExactlyInAnyOrderEntriesOf(Map.of("r1", 1, "r2", 1, "429", 1));
    assertThat(bins.get(1)).containsExactlyInAnyOrderEntriesOf(Map.of("r1", 1));
    assertThat(bins).doesNotContainKey(2);
    assertThat(bins.get(3)).containsExactlyInAnyOrderEntriesOf(Map.of("r2", 1));
  }
}
