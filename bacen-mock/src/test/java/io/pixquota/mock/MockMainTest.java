package io.pixquota.mock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MockMainTest {

  @Test
  void helpListsEveryOption() {
    StringWriter out = new StringWriter();
    CommandLine cmd = new CommandLine(new MockMain());
    cmd.setOut(new PrintWriter(out));
    assertThat(cmd.execute("--help")).isZero();
    for (String option : new String[] {"--port", "--bind", "--policy", "--capacity", "--refill-tokens", "--period-ms",
        "--integrator", "--latency-ms", "--jitter-ms", "--no-retry-after", "--status-cost", "--redis-url",
        "--admin-from-anywhere", "--retry-after-seconds"}) {
      assertThat(out.toString()).contains(option);
    }
  }

  @Test
  void optionsBecomeTheConfiguration() {
    MockMain main = new MockMain();
    new CommandLine(main).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("--port", "0", "--policy", "sliding",
        "--capacity", "3", "--period-ms", "2000", "--integrator", "bank=s3cret", "--status-cost", "404=20",
        "--no-retry-after", "--latency-ms", "5", "--jitter-ms", "30");
    MockConfig config = main.config();
    assertThat(config.policy()).isEqualTo(QuotaPolicy.sliding(3, 2000));
    assertThat(config.integrators()).containsOnlyKeys("bank");
    assertThat(config.statusCosts()).containsEntry(404, 20.0);
    assertThat(config.retryAfter()).isFalse();
    assertThat(config.latencyMs()).isEqualTo(5);
    assertThat(config.jitterMs()).isEqualTo(30);
    assertThat(config.toString()).doesNotContain("s3cret");
  }

  @Test
  void aFixedRetryAfterIsCheckedAgainstTheOtherOptions() {
    MockMain fixed = new MockMain();
    new CommandLine(fixed).parseArgs("--retry-after-seconds", "3");
    assertThat(fixed.config().retryAfterSeconds()).isEqualTo(3);
    MockMain both = new MockMain();
    new CommandLine(both).parseArgs("--retry-after-seconds", "3", "--no-retry-after");
    assertThatThrownBy(both::config).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryAfterSeconds is 3, but 429s carry no Retry-After");
    MockMain negative = new MockMain();
    new CommandLine(negative).parseArgs("--retry-after-seconds", "-1");
    assertThatThrownBy(negative::config).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("retryAfterSeconds must be within 0..86400, but was -1");
  }

  @Test
  void withoutIntegratorsTheDemoOneIsAccepted() {
    MockMain main = new MockMain();
    new CommandLine(main).parseArgs();
    assertThat(main.config().integrators()).containsEntry("demo", "demo-secret");
  }
}
