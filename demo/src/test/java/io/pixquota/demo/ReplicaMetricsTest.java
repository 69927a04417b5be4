package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.harness.FreePorts;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/** A replica's /metrics, scraped for real and parsed as Prometheus text; the dashboard queries only what it serves. */
@ExtendWith(RedisExtension.class)
class ReplicaMetricsTest {
  private static final Pattern SAMPLE = Pattern.compile(
      "([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (-?[0-9.eE+-]+|NaN|\\+Inf|-Inf)");

  @Test
  void metricsAreServedInPrometheusTextFormatAndCoverTheDashboard(TestRedis redis) throws Exception {
    int port = FreePorts.pick();
    try (MockBacen mock = MockBacen.start(MockConfig.defaults())) {
      Thread replica = new Thread(() -> new CommandLine(new DemoMain()).setCaseInsensitiveEnumValuesAllowed(true)
          .execute("replica", "--bacen-url", mock.url().toString(), "--redis-url", redis.uri().toString(),
              "--bucket-name", redis.keyPrefix().replace(":", "-") + "metrics", "--calls", "12",
              "--metrics-port", Integer.toString(port), "--linger-ms", "20000", "--in-flight", "6"));
      replica.setDaemon(true);
      replica.start();
      HttpClient http = HttpClient.newHttpClient();
      String body = "";
      long deadline = System.nanoTime() + 30_000_000_000L;
      String bucket = redis.keyPrefix().replace(":", "-") + "metrics";
      String granted = "bacen_throttle_permits_total{bucket=\"" + bucket + "\",priority=\"interactive\",quota=\""
          + bucket + "\",result=\"granted\"} 12.0"; // a bucket no quota names is its own quota
      while (System.nanoTime() < deadline && !(body.contains(granted)
          && body.contains("bacen_client_requests_seconds_count{operation=\"getPix\",outcome=\"success\","
              + "status=\"200\"} 12"))) {
        Thread.sleep(200);
        try {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
              + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
          assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
              ct -> assertThat(ct).startsWith("text/plain; version=0.0.4"));
          body = r.body();
        } catch (java.io.IOException notYet) {
          // the replica is still starting
        }
      }
      Set<String> names = new HashSet<>();
      for (String line : body.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        Matcher m = SAMPLE.matcher(line);
        assertThat(m.matches()).as("a valid sample line: %s", line).isTrue();
        names.add(m.group(1));
      }
      assertThat(names).contains("bacen_throttle_wait_seconds_count", "bacen_throttle_wait_seconds_bucket",
          "bacen_throttle_rebooked_total", "bacen_throttle_redis_errors_total", "bacen_throttle_fallback_active",
          "bacen_throttle_permits_total", "bacen_throttle_lateness_seconds_max", "bacen_client_requests_seconds_count");
      assertThat(body).contains(granted);
      assertThat(body).as("no id in any label").doesNotContain("E12345678");

      JsonNode dashboard = new ObjectMapper().readTree(Path.of("..").toAbsolutePath().normalize()
          .resolve("docs/grafana/dashboards/pixquota.json").toFile());
      Pattern metric = Pattern.compile("bacen_[a-z_]+");
      for (JsonNode panel : dashboard.get("panels")) {
        if (panel.get("title").asText().startsWith("DICT:") || panel.get("title").asText().startsWith("Shares:")) {
          continue; // a DictClient's: DictMetricsTest; shares within a quota: ThrottleSharesTest
        }
        for (JsonNode target : panel.get("targets")) {
          Matcher m = metric.matcher(target.get("expr").asText());
          while (m.find()) {
            assertThat(names).as("dashboard queries %s", m.group()).contains(m.group());
          }
        }
      }
      String rules = Files.readString(Path.of("..").toAbsolutePath().normalize()
          .resolve("docs/prometheus-rules.yml"));
      Matcher inRules = metric.matcher(rules.substring(rules.indexOf("groups:"),
          rules.indexOf("- name: pixquota-dict"))); // the DICT group is a DictClient's: DictMetricsTest
      int named = 0;
      while (inRules.find()) {
        named++;
        assertThat(names).as("the alert rules name %s", inRules.group()).contains(inRules.group());
      }
      assertThat(named).as("metrics named by the alert rules").isGreaterThanOrEqualTo(10);
      assertThat(body).as("the 429 answers counted from 0, so that the first one raises the alert")
          .contains("bacen_client_answers_total{operation=\"getPix\",status=\"429\"} 0.0");
    }
  }
}
