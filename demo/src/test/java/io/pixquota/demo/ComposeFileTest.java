package io.pixquota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.pixquota.mock.MockMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * No Docker engine runs here, so the compose file is checked for what can be checked: every service's command parses
 * with the real options of the jar it runs, the volumes point at files the build makes or the repo holds, and every
 * metric the Grafana dashboard queries exists under that name.
 */
class ComposeFileTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private static JsonNode compose() throws Exception {
    return new ObjectMapper(new YAMLFactory()).readTree(ROOT.resolve("docker-compose.yml").toFile());
  }

  private static String[] command(JsonNode service, String jar) {
    List<String> args = new ArrayList<>();
    service.get("command").forEach(n -> args.add(n.asText()));
    assertThat(args.subList(0, 3)).containsExactly("java", "-jar", jar);
    return args.subList(3, args.size()).toArray(String[]::new);
  }

  @Test
  void theMocksCommandParsesWithTheMockJarsOptions() throws Exception {
    JsonNode mock = compose().get("services").get("bacen-mock");
    MockMain main = new MockMain();
    new CommandLine(main).setCaseInsensitiveEnumValuesAllowed(true)
        .parseArgs(command(mock, "/app/bacen-mock.jar"));
    assertThat(main.config().bind()).isEqualTo("0.0.0.0");
    assertThat(main.config().port()).isEqualTo(8080);
    assertThat(main.config().adminFromAnywhere()).isTrue();
  }

  @Test
  void eachReplicasCommandParsesWithTheDemoJarsReplicaSubcommand() throws Exception {
    JsonNode services = compose().get("services");
    for (String name : new String[] {"replica-1", "replica-2"}) {
      String[] args = command(services.get(name), "/app/bacen-demo.jar");
      assertThat(args[0]).isEqualTo("replica");
      CommandLine.ParseResult parsed = new CommandLine(new DemoMain()).setCaseInsensitiveEnumValuesAllowed(true)
          .parseArgs(args);
      ReplicaCommand replica = (ReplicaCommand) parsed.subcommand().commandSpec().userObject();
      assertThat(replica.mode).isEqualTo(ReplicaCommand.Mode.THROTTLED);
      assertThat(replica.options.bacenUrl.toString()).isEqualTo("http://bacen-mock:8080");
      assertThat(replica.options.redisUrl).isEqualTo("redis://redis:6379");
      assertThat(replica.bursts).isZero();
      assertThat(replica.metricsPort).isEqualTo(9100);
    }
  }

  @Test
  void volumesPointAtFilesTheBuildMakesOrTheRepoHolds() throws Exception {
    JsonNode services = compose().get("services");
    List<String> sources = new ArrayList<>();
    services.forEach(s -> {
      if (s.has("volumes")) {
        s.get("volumes").forEach(v -> sources.add(v.asText().split(":")[0]));
      }
    });
    assertThat(sources).contains("./bacen-mock/target/bacen-mock.jar", "./demo/target/bacen-demo.jar",
        "./docs/prometheus.yml", "./docs/prometheus-rules.yml", "./docs/grafana/provisioning",
        "./docs/grafana/dashboards");
    for (String source : sources) {
      if (!source.contains("/target/")) {
        assertThat(ROOT.resolve(source)).as(source).exists();
      }
    }
    services.forEach(s -> assertThat(s.get("image").asText()).as("a pinned image version, not latest")
        .matches("[a-z0-9./_-]+:v?[0-9]+\\.[0-9]+\\.[0-9][0-9a-z._-]*"));
    String prometheus = Files.readString(ROOT.resolve("docs/prometheus.yml"));
    assertThat(prometheus).contains("replica-1:9100", "replica-2:9100").contains("prometheus-rules.yml");
  }
}
