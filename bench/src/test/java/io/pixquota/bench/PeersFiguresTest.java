package io.pixquota.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The arithmetic behind bench peers' figures, on hand-made runs whose answers are known. */
class PeersFiguresTest {
  private static final long MS = 1_000_000L;

  /** A call: arrived, admitted, left, done (ms), status. */
  private static long[] call(long arrivedMs, long admittedMs) {
    return new long[] {arrivedMs * MS, admittedMs * MS, admittedMs * MS, (admittedMs + 5) * MS, 200};
  }

  private static PeersFigures.Phase phase(List<long[]> calls, List<long[]> events) {
    return new PeersFigures.Phase(0, calls, events, events.size(), 0, 0, 0, 0);
  }

  @Test
  void firstComeFirstServedIsAllInOrder() {
    List<long[]> calls = List.of(call(0, 0), call(10, 100), call(20, 200), call(30, 300));
    assertThat(PeersFigures.inOrderShare(phase(calls, List.of()))).isEqualTo(1.0);
  }

  @Test
  void aLaterArrivalAdmittedFirstCountsAgainstOrder() {
    // the caller that arrived at 20 ms goes before the one waiting since 10 ms: that admission is out of order;
    // the next one (10 ms, the earliest still waiting) is in order again
    List<long[]> calls = List.of(call(0, 0), call(10, 200), call(20, 100), call(30, 300));
    assertThat(PeersFigures.inOrderShare(phase(calls, List.of()))).isEqualTo(0.75);
  }

  @Test
  void aCallerThatHasNotArrivedYetIsNotWaiting() {
    // admitted at once on arrival, one after another: nobody was passed over
    List<long[]> calls = List.of(call(0, 0), call(50, 50), call(100, 100));
    assertThat(PeersFigures.inOrderShare(phase(calls, List.of()))).isEqualTo(1.0);
  }

  @Test
  void spanRunsFromFirstToLastArrivalAtTheProviderWhateverTheAnswer() {
    List<long[]> events = List.of(new long[] {200 * MS, 200}, new long[] {3_756 * MS, 429},
        new long[] {1_000 * MS, 200});
    assertThat(PeersFigures.span(phase(List.of(), events))).isCloseTo(3.556, offset(1e-9));
  }

  @Test
  void roundTripsPerAdmittedCallLeaveKeepAlivePingsOut() {
    PeersFigures.Phase p = new PeersFigures.Phase(0, List.of(), List.of(), 30, 10, 0, 48, 8);
    assertThat(PeersFigures.perAdmitted(p)).isEqualTo(1.0);
    assertThat(PeersFigures.perAdmitted(new PeersFigures.Phase(0, List.of(), List.of(), 0, 0, 0, 3, 0))).isNaN();
  }

  @Test
  void mediansAndSpreadsOverRuns() {
    List<double[]> runs = List.of(new double[] {3}, new double[] {1}, new double[] {2}, new double[] {Double.NaN});
    assertThat(Stats.median(runs, 0, "%.1f")).isEqualTo("2.0 (1.0-3.0)");
    assertThat(Stats.median(List.of(new double[] {1}, new double[] {4}), 0, "%.1f")).isEqualTo("2.5 (1.0-4.0)");
    assertThat(Stats.median(List.of(new double[] {Double.NaN}), 0, "%.1f")).isEqualTo("n/a");
    assertThat(Stats.each(List.of(new double[] {0}, new double[] {2}), 0)).isEqualTo("0 / 2");
  }

  @Test
  void theScriptsOwnTimeIsEvalsAndEvalshasMicrosOverTheirCalls() {
    String stats = "# Commandstats\r\ncmdstat_ping:calls=500,usec=400,usec_per_call=0.80,rejected_calls=0\r\n"
        + "cmdstat_evalsha:calls=900,usec=18000,usec_per_call=20.00,rejected_calls=0,failed_calls=0\r\n"
        + "cmdstat_eval:calls=100,usec=4000,usec_per_call=40.00,rejected_calls=0,failed_calls=0\r\n"
        + "cmdstat_hget:calls=1000,usec=900,usec_per_call=0.90,rejected_calls=0,failed_calls=0\r\n";
    assertThat(LatencyScenario.scriptMicrosPerCall(stats)).as("(18000 + 4000) / (900 + 100)").isEqualTo(22.0);
    assertThat(LatencyScenario.scriptMicrosPerCall("# Commandstats\r\ncmdstat_ping:calls=5,usec=4\r\n")).isZero();
  }
}
