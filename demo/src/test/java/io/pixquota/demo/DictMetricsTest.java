package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.pixquota.bacen.dict.DictClient;
import io.pixquota.bacen.dict.DictClientConfig;
import io.pixquota.bacen.dict.DictEntry;
import io.pixquota.bacen.dict.DictNotFoundException;
import io.pixquota.bacen.dict.DictPolicies;
import io.pixquota.bacen.dict.DictUserRefusedException;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * What a DictClient serves to Prometheus: every metric the dashboard's "DICT:" panels and the alert file's
 * pixquota-dict group name is there after lookups, a scan and a credit, and no key, payer id, pseudonym or
 * end-to-end id is in any label.
 */
@ExtendWith(RedisExtension.class)
class DictMetricsTest {
  @Test
  void theDashboardsAndTheAlertsDictMetricsAreServedWithoutAnIdInALabel(TestRedis redis) throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RedissonClient redisson = redis.newRedisson();
    try (MockBacen mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.later('F'))
        .build()); DictClient dict = DictClient.builder(DictClientConfig.builder().baseUrl(mock.dictUrl())
        .participant("12345678").payerSecret("a-secret-of-the-psp-0001").policies(DictPolicies.later('F'))
        .keyPrefix(redis.keyPrefix()).build()).redisson(redisson).meterRegistry(registry).build()) {
      DictEntry e = dict.getEntry("user4@example.com", "12345678909");
      assertThat(dict.paymentSettled(e.endToEndId())).isTrue();
      for (int i = 0; i < 6; i++) {
        int n = i;
        assertThatThrownBy(() -> dict.getEntry("nobody" + n + "@example.com", "scanner-cpf"))
            .isInstanceOfAny(DictNotFoundException.class, DictUserRefusedException.class);
      }
      String body = registry.scrape();
      Set<String> names = new HashSet<>();
      for (String line : body.split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          names.add(line.replaceFirst("[{ ].*", ""));
        }
      }
      Path docs = Path.of("..").toAbsolutePath().normalize().resolve("docs");
      Pattern metric = Pattern.compile("bacen_dict_[a-z_]+");
      int named = 0;
      for (JsonNode panel : new ObjectMapper().readTree(docs.resolve("grafana/dashboards/pixquota.json").toFile())
          .get("panels")) {
        if (panel.get("title").asText().startsWith("DICT:")) {
          for (JsonNode target : panel.get("targets")) {
            Matcher m = metric.matcher(target.get("expr").asText());
            while (m.find()) {
              named++;
              assertThat(names).as("the dashboard queries %s", m.group()).contains(m.group());
            }
          }
        }
      }
      String rules = Files.readString(docs.resolve("prometheus-rules.yml"));
      Matcher inRules = metric.matcher(rules.substring(rules.indexOf("- name: pixquota-dict")));
      while (inRules.find()) {
        named++;
        assertThat(names).as("the alert rules name %s", inRules.group()).contains(inRules.group());
      }
      assertThat(named).isGreaterThanOrEqualTo(15);
      assertThat(body).contains("bacen_dict_refused_total{policy=\"ENTRIES_READ_USER_ANTISCAN\",scope=\"USER\"} 1.0")
          .contains("bacen_dict_provider_refused_total{policy=\"ENTRIES_READ_PARTICIPANT_ANTISCAN\"} 0.0")
          .contains("bacen_dict_credits_total{outcome=\"redeemed\"} 1.0");
      assertThat(body).as("no id in any label").doesNotContain(e.endToEndId().substring(0, 12))
          .doesNotContain("12345678909").doesNotContain("example.com").doesNotContain("u:");
    } finally {
      redisson.shutdown();
    }
  }
}
