package io.pixquota.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.pixquota.bench.EnduranceChecks.Check;
import io.pixquota.bench.EnduranceFleet.Sample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checks bench endurance applies to itself, on hand-made series whose answers are known. */
class EnduranceChecksTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long MIB = 1024 * 1024;

  /**
   * A replica's series every 10 s for {@code minutes}: heap growing {@code mibPerHour}, threads drifting over the last
   * three samples, meters over the last one.
   */
  private static List<Sample> series(int replica, int incarnation, double minutes, double mibPerHour,
      int threadsDrift, int metersDrift) {
    List<Sample> out = new ArrayList<>();
    int n = (int) (minutes * 6);
    for (int i = 0; i <= n; i++) {
      long atMs = i * 10_000L;
      long heap = 20 * MIB + Math.round(mibPerHour * MIB * atMs / 3_600_000.0) + (i % 2 == 0 ? 4096 : -4096);
      out.add(new Sample(replica, incarnation, atMs, JSON.valueToTree(Map.of("heapAfterGcBytes", heap,
          "threads", 40 + (i >= n - 2 ? threadsDrift : 0), "fds", 50, "meters", 130 + (i == n ? metersDrift : 0),
          "redisConnections", 9))));
    }
    return out;
  }

  /** One fault of each kind, the last settled by {@code byMs}. */
  private static List<EnduranceFaults.Fault> everyKindBy(long byMs) {
    List<EnduranceFaults.Fault> out = new ArrayList<>();
    for (EnduranceFaults.Kind k : EnduranceFaults.Kind.values()) {
      out.add(new EnduranceFaults.Fault(k, 1_000, byMs - EnduranceFaults.Fault.SETTLE_MS));
    }
    return out;
  }

  private static Check named(EnduranceChecks checks, String name) {
    return checks.all().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void theSlopeIsTheHeapsGrowthPerHourWhateverTheNoise() {
    assertThat(EnduranceChecks.slopeMibPerHour(series(1, 1, 60, 3.5, 0, 0))).isCloseTo(3.5, offset(0.01));
    assertThat(EnduranceChecks.slopeMibPerHour(series(1, 1, 60, 0, 0, 0))).isCloseTo(0, offset(0.01));
  }

  @Test
  void anHourGrowingTwoMibFailsAndOneLevelPasses() {
    EnduranceChecks checks = new EnduranceChecks(600_000, 3_600_000, everyKindBy(1_200_000));
    List<Sample> all = new ArrayList<>(series(1, 1, 60, 2, 0, 0));
    all.addAll(series(3, 1, 60, 0.2, 0, 0));
    checks.replicas(all);
    assertThat(named(checks, "replica 1, heap after GC").passed()).isFalse();
    assertThat(named(checks, "replica 1, heap after GC").figure()).startsWith("2.00 MiB/h");
    assertThat(named(checks, "replica 3, heap after GC").passed()).isTrue();
    assertThat(checks.passed()).isFalse();
  }

  @Test
  void aShortRunShowsTheSlopeWithoutCheckingIt() {
    EnduranceChecks checks = new EnduranceChecks(60_000, 180_000, List.of());
    checks.replicas(series(1, 1, 3, 50, 0, 0));
    assertThat(named(checks, "replica 1, heap after GC").passed()).isTrue();
    assertThat(named(checks, "replica 1, heap after GC").figure()).contains("shown, checked from 30 min");
  }

  @Test
  void threadsThatDriftBySixAndAMeterMoreFail() {
    EnduranceChecks checks = new EnduranceChecks(60_000, 600_000, everyKindBy(300_000));
    checks.replicas(series(2, 1, 10, 0, 6, 1));
    assertThat(named(checks, "replica 2, threads").passed()).isFalse();
    assertThat(named(checks, "replica 2, threads").figure()).isEqualTo("40 to 46");
    assertThat(named(checks, "replica 2, fds").passed()).isTrue();
    assertThat(named(checks, "replica 2, meters").passed()).isFalse();
  }

  @Test
  void oneSampleWithSixThreadsMoreIsAPoolsMomentNotADrift() {
    EnduranceChecks checks = new EnduranceChecks(60_000, 600_000, everyKindBy(300_000));
    List<Sample> s = new ArrayList<>(series(2, 1, 10, 0, 0, 0));
    Sample last = s.remove(s.size() - 1);
    s.add(new Sample(2, 1, last.atMs(), JSON.valueToTree(Map.of("heapAfterGcBytes", 20 * MIB, "threads", 46, "fds",
        50, "meters", 130, "redisConnections", 9))));
    checks.replicas(s);
    assertThat(named(checks, "replica 2, threads").figure()).isEqualTo("40 to 40");
    assertThat(checks.passed()).isTrue();
  }

  @Test
  void aMeterThatAppearsInTheFirstHalfIsAnOutcomeSeenLateNotALeak() {
    EnduranceChecks checks = new EnduranceChecks(60_000, 600_000, everyKindBy(300_000));
    List<Sample> s = new ArrayList<>();
    for (Sample x : series(2, 1, 10, 0, 0, 0)) {
      int meters = x.atMs() >= 120_000 ? 131 : 130; // a fault's first 503 at 2 min, then nothing new
      s.add(new Sample(x.replica(), x.incarnation(), x.atMs(), JSON.valueToTree(Map.of("heapAfterGcBytes",
          x.values().get("heapAfterGcBytes").asLong(), "threads", 40, "fds", 50, "meters", meters,
          "redisConnections", 9))));
    }
    checks.replicas(s);
    assertThat(named(checks, "replica 2, meters").passed()).isTrue();
    assertThat(named(checks, "replica 2, meters").figure()).isEqualTo("130, 131 half way, 131 at the end");
  }

  @Test
  void aReplicaStartedAgainIsASeriesOfItsOwnAndATooShortLifeIsNotJudged() {
    EnduranceChecks checks = new EnduranceChecks(60_000, 600_000, everyKindBy(300_000));
    List<Sample> all = new ArrayList<>(series(2, 1, 10, 0, 0, 0));
    all.addAll(series(2, 2, 0.3, 0, 9, 0)); // lived 18 s: nothing to say of it
    checks.replicas(all);
    assertThat(checks.all()).extracting(Check::name).noneMatch(n -> n.contains("start 2"));
    assertThat(checks.passed()).isTrue();
  }

  @Test
  void aFaultCostsWhatItsCallersMetWhileItRanAndSettled() {
    // replica 1 lives throughout; replica 2 is killed in the window and starts again; 10 s samples
    List<Sample> all = new ArrayList<>();
    for (long t = 0; t <= 120_000; t += 10_000) {
      long refused = t <= 30_000 ? 1 : t <= 50_000 ? 4 : 6; // 5 refusals from 30 s to 60 s
      all.add(outcomes(1, 1, t, Map.of("pix-person:served", t / 1000, "pix-person:refused-BucketUnavailable",
          refused)));
      if (t <= 30_000) {
        all.add(outcomes(2, 1, t, Map.of("spi:refused-ThrottleRefused", 7L)));
      } else if (t >= 50_000) {
        all.add(outcomes(2, 2, t, Map.of("spi:refused-ThrottleRefused", 2L)));
      }
      if (t >= 100_000) { // started long after the window: what it met is not the window's
        all.add(outcomes(3, 2, t, Map.of("dict-honest:refused-reserve", 15L)));
      }
    }
    EnduranceFaults.Fault fault = new EnduranceFaults.Fault(EnduranceFaults.Kind.REPLICA_KILL, 35_000, 45_000);
    Map<String, Long> cost = EnduranceCosts.of(List.of(fault), all, 10_000).get(fault);
    assertThat(cost).containsExactly(Map.entry("pix-person:refused-BucketUnavailable", 5L),
        Map.entry("spi:refused-ThrottleRefused", 2L));
    assertThat(EnduranceCosts.describe(cost)).isEqualTo(
        "pix-person:refused-BucketUnavailable 5, spi:refused-ThrottleRefused 2");
  }

  private static Sample outcomes(int replica, int incarnation, long atMs, Map<String, Long> outcomes) {
    return new Sample(replica, incarnation, atMs, JSON.valueToTree(Map.of("outcomes", outcomes)));
  }

  @Test
  void a429OutsideAFaultPassesOnlyWhenTheJitterMeasuredThenAllowsIt() {
    // 8 + 9 J <= 10 holds up to J = 222 ms: at 150 ms a 429 is a defect; at 400 ms, 8 + 3.6 - 10 allows 2
    for (double lateness : new double[] {120, 370}) {
      EnduranceChecks checks = new EnduranceChecks(60_000, 600_000, everyKindBy(300_000));
      List<Sample> samples = List.of(jitter(1, 95_000, 5), jitter(1, 105_000, lateness), jitter(2, 108_000, 10));
      EnduranceJudges.outside(checks, List.of(100_000L), samples);
      Check c = named(checks, "API Pix 429s outside a fault");
      assertThat(c.passed()).as(c.figure()).isEqualTo(lateness > 200);
      assertThat(c.figure()).isEqualTo(lateness > 200
          ? "1 (the worst at 100 s: 1 within a minute, the replicas' jitter then 400 ms allows 2)"
          : "1 (the worst at 100 s: 1 within a minute, the replicas' jitter then 150 ms allows 0)");
    }
    EnduranceChecks none = new EnduranceChecks(60_000, 600_000, everyKindBy(300_000));
    EnduranceJudges.outside(none, List.of(), List.of());
    assertThat(named(none, "API Pix 429s outside a fault").passed()).isTrue();
  }

  private static Sample jitter(int replica, long atMs, double latenessMs) {
    return new Sample(replica, 1, atMs, JSON.valueToTree(Map.of("pixLatenessMaxMs", latenessMs,
        "pixAnswerMaxMs", 30.0)));
  }

  @Test
  void keysAreKnownByTheirNames() {
    assertThat(RedisCensus.kind("pixquota:{dict-12345678}:b:u:AbC")).isEqualTo("dict-payer");
    assertThat(RedisCensus.kind("pixquota:{dict-12345678}:b:ENTRIES_READ")).isEqualTo("dict-participant");
    assertThat(RedisCensus.kind("pixquota:{endurance-pix}")).isEqualTo("bucket");
  }
}
