package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.internal.StepHash;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.RateAdaptation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * Shares through the throttle (issue 46): a request's flow (its own, else the throttle's) reaches its quota's bucket,
 * so that a storming service's calls queue on its own share while another service's go at once; whatever
 * {@link RedisUnavailablePolicy} wraps the bucket. On a clock the test moves.
 */
class ThrottleSharesTest {
  private final FakeTime time = FakeTime.manual(1_000);
  private static final Map<String, Double> SHARES = Map.of("checkout", 6.0, "merchant-api", 3.0, "*", 0.0);

  private LocalTokenBucket bucket() {
    return new LocalTokenBucket("pix", List.of(Limit.of(8, 9)), time::nanoTime, new StepHash(),
        LocalTokenBucket.DEFAULT_CONFIGURATION_LEASE, RateAdaptation.defaults(), SHARES);
  }

  private SimpleMeterRegistry registry;

  private Throttle throttle(RedisUnavailablePolicy policy, String flow) {
    registry = new SimpleMeterRegistry();
    return ThrottleTesting.onTime(Throttle.builder(), time).quota("pix", Match.any(), bucket(), 1)
        .maxWait(Duration.ofSeconds(30)).redisUnavailable(policy, 0.5, Duration.ofSeconds(1)).flow(flow)
        .meterRegistry(registry).build();
  }

  private double calls(String flow, String outcome) {
    return registry.get("bacen.throttle.flow.calls").tags("quota", "pix", "flow", flow, "outcome", outcome).counter()
        .count();
  }

  /** Books without a thread: the bucket answers at once, the slot is due when the test's clock reaches it. */
  private static void book(Throttle throttle, ThrottleRequest request, List<Slot> due) {
    throttle.book(request).start(due::add, failure -> { });
  }

  @Test
  void aStormingServiceQueuesOnItsShareWhileAnotherGoesAtOnce() throws Exception {
    for (RedisUnavailablePolicy policy : RedisUnavailablePolicy.values()) {
      Throttle throttle = throttle(policy, "merchant-api"); // the service's own name: its requests' flow
      List<Slot> due = new ArrayList<>();
      book(throttle, ThrottleRequest.of("GET", "/pix/C0").withFlow("checkout"), due);
      for (int i = 0; i < 40; i++) {
        book(throttle, ThrottleRequest.of("GET", "/pix/E" + i), due);
      }
      assertThat(due).as("%s: checkout's call, the storm's first calls at once, the rest on its own share", policy)
          .hasSize(6);
      Integer answer = throttle.exchange(ThrottleRequest.of("GET", "/pix/C").withFlow("checkout")
          .withMaxWait(Duration.ZERO), Answering.status(200));
      assertThat(answer).as("%s: checkout at once, from its own share", policy).isNotNull();
      assertThatThrownBy(() -> throttle.exchange(ThrottleRequest.of("GET", "/pix/M").withMaxWait(Duration.ZERO),
          Answering.status(200))).as("%s: the storm's next call is behind its own", policy)
          .isInstanceOf(ThrottleRefusedException.class);
      assertThat(calls("checkout", "own")).isEqualTo(2);
      assertThat(calls("merchant-api", "borrowed")).as("%s: what the others left now", policy).isEqualTo(3);
      assertThat(calls("merchant-api", "own") + calls("merchant-api", "borrowed")).isEqualTo(40);
      assertThat(calls("merchant-api", "refused")).isEqualTo(1);
      assertThat(registry.get("bacen.throttle.flow.wait").tags("flow", "merchant-api").timer().max(
          java.util.concurrent.TimeUnit.SECONDS)).as("the storm's last slot, on its own 3/s").isGreaterThan(10);
    }
  }

  @Test
  void aFlowWithoutAShareAndNothingToBorrowIsRefused() throws Exception {
    Throttle throttle = throttle(RedisUnavailablePolicy.FAIL_CLOSED, null);
    List<Slot> due = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      book(throttle, ThrottleRequest.of("GET", "/pix/E" + i).withFlow("checkout"), due);
    }
    assertThat(due).as("its own 4, and what the others (which never asked) hold: 2 and 1").hasSize(7);
    assertThatThrownBy(() -> throttle.exchange(ThrottleRequest.of("GET", "/pix/R").withFlow("reports"),
        Answering.status(200))).as("weight 0, nothing to borrow: it would wait for ever")
        .isInstanceOf(ThrottleRefusedException.class);
    assertThat(calls("*", "refused")).as("a flow not named is counted as the flows not named").isEqualTo(1);
    assertThat(registry.find("bacen.throttle.flow.calls").tag("flow", "reports").counters()).isEmpty();
  }

  /** The dashboard's "Shares:" panels query what the throttle's flow meters are called in Prometheus. */
  @Test
  void theDashboardsSharesPanelsQueryTheFlowMeters() throws Exception {
    throttle(RedisUnavailablePolicy.FAIL_CLOSED, "checkout");
    java.util.Set<String> names = new java.util.HashSet<>();
    registry.getMeters().forEach(m -> {
      String name = m.getId().getName().replace('.', '_');
      if (m instanceof io.micrometer.core.instrument.Counter) {
        names.add(name + "_total");
      } else if (m instanceof io.micrometer.core.instrument.Timer) {
        java.util.List.of("_seconds_count", "_seconds_sum", "_seconds_max").forEach(s -> names.add(name + s));
      }
    });
    String dashboard = java.nio.file.Files.readString(java.nio.file.Path.of("..").toAbsolutePath().normalize()
        .resolve("docs/grafana/dashboards/pixquota.json"));
    java.util.regex.Matcher shares = java.util.regex.Pattern.compile("\"title\": \"Shares:(?:.|\n)*?\"expr\": "
        + "\"([^\n]*)\",").matcher(dashboard);
    int queried = 0;
    while (shares.find()) {
      java.util.regex.Matcher metric = java.util.regex.Pattern.compile("bacen_[a-z_]+").matcher(shares.group(1));
      while (metric.find()) {
        queried++;
        assertThat(names).as("the dashboard queries %s", metric.group()).contains(metric.group());
      }
    }
    assertThat(queried).as("metrics the Shares panels query").isEqualTo(2);
  }
}
