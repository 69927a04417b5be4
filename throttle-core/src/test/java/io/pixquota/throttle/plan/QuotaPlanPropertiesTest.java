package io.pixquota.throttle.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The planner's promise, checked by simulation: for every plan it accepts, random schedules (replica bursts, steady
 * demand, per-call lateness and network delay within the plan's J) never earn a 429 from the provider's limiter,
 * and the client's slots never exceed B + r*T in any window. And the converse: the same simulator and generator do
 * find 429s for a plan whose margin is too small, so a green run means something.
 */
class QuotaPlanPropertiesTest {
  private static final long MS = 1_000_000L;

  /** One random scenario: a provider, a jitter the planner accepts, and a schedule of calls. */
  record Scenario(ProviderPolicy provider, Duration jitter, long phaseNanos, List<ProviderSimulation.Call> calls) {}

  static Scenario scenario(long seed) {
    Random r = new Random(seed);
    ProviderPolicy provider;
    long j;
    switch (r.nextInt(3)) {
      case 0 -> {
        double bp = 2 + r.nextInt(49);
        double rp = 1 + r.nextInt(50);
        provider = ProviderPolicy.tokenBucket(bp, rp, Duration.ofSeconds(1));
        double maxJ = (bp - 1) / (rp * (1 - QuotaPlanner.RATE_MARGIN)); // the planner's own limit
        j = (long) (Math.min(maxJ, 0.5) * r.nextDouble() * 1e9);
      }
      case 1 -> {
        provider = ProviderPolicy.slidingWindow(2 + r.nextInt(49), Duration.ofMillis(200 + r.nextInt(4800)));
        j = r.nextInt(300) * MS;
      }
      default -> {
        provider = ProviderPolicy.fixedWindow(2 + r.nextInt(49), Duration.ofMillis(200 + r.nextInt(4800)));
        j = r.nextInt(300) * MS;
      }
    }
    int replicas = 1 + r.nextInt(6);
    int calls = 1 + r.nextInt(150);
    double lateShare = r.nextDouble(); // J = lateness bound + network jitter
    long lateBound = (long) (j * lateShare);
    long networkJitter = j - lateBound;
    long networkBase = r.nextInt(50) * MS;
    long horizon = (long) (3e9 * r.nextDouble());
    long[] burstAt = new long[replicas];
    for (int i = 0; i < replicas; i++) {
      burstAt[i] = r.nextInt(4) == 0 ? 0 : (long) (horizon * r.nextDouble());
    }
    List<ProviderSimulation.Call> list = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      long demand = r.nextBoolean() ? burstAt[r.nextInt(replicas)] : (long) (horizon * r.nextDouble());
      // adversarial lateness: often the extremes, the early calls late and the later ones on time
      long lateness = switch (r.nextInt(3)) {
        case 0 -> 0;
        case 1 -> lateBound;
        default -> (long) (lateBound * r.nextDouble());
      };
      long network = networkBase + (r.nextBoolean() ? (r.nextBoolean() ? 0 : networkJitter)
          : (long) (networkJitter * r.nextDouble()));
      list.add(new ProviderSimulation.Call(demand, lateness, network));
    }
    return new Scenario(provider, Duration.ofNanos(j), (long) (r.nextDouble() * provider.period().toNanos()), list);
  }

  @Property(tries = 10_000)
  void everyPlanTheplannerAcceptsMeetsItsProviderWithZero429(@ForAll long seed) {
    Scenario s = scenario(seed);
    QuotaPlan plan = QuotaPlanner.plan(s.provider(), s.jitter());
    ProviderSimulation.Outcome outcome = ProviderSimulation.run(plan, s.provider(), s.phaseNanos(), s.calls());
    assertThat(outcome.tooManyRequests()).as("%s, %s", s.provider(), plan.reasoning()).isZero();
  }

  @Property(tries = 2_000)
  void clientSlotsNeverExceedBurstPlusRateTimesLength(@ForAll long seed) {
    Scenario s = scenario(seed);
    QuotaPlan plan = QuotaPlanner.plan(s.provider(), s.jitter());
    ProviderSimulation.Outcome outcome = ProviderSimulation.run(plan, s.provider(), s.phaseNanos(), s.calls());
    for (long t : new long[] {0, 10 * MS, 100 * MS, 1000 * MS, 3000 * MS}) {
      double bound = plan.capacity() + plan.ratePerSecond() * t / 1e9 + 1e-9;
      assertThat((double) ProviderSimulation.maxSlotsInWindow(outcome.slotNanos(), t)).as("window %d ms", t / MS)
          .isLessThanOrEqualTo(Math.floor(bound));
    }
  }

  @Example
  void aPlanOneTokenOverTheMarginEarnsA429OnTheWorstSchedule() {
    ProviderPolicy provider = ProviderPolicy.tokenBucket(10, 10, Duration.ofSeconds(1));
    Duration j = Duration.ofMillis(200);
    QuotaPlan safe = QuotaPlanner.plan(provider, j); // Bc = 10 - 9.95 x 0.2 = 8.01
    QuotaPlan greedy = new QuotaPlan(safe.capacity() + 1, safe.ratePerSecond(), j, safe.lateLimit(), 1, 1, "greedy");
    // The worst schedule for each plan: 20 calls at once, each leaving late by J minus its slot (within J), so that
    // the burst and every call booked in [0, J] reach the provider at the same instant J.
    assertThat(ProviderSimulation.run(safe, provider, 0, worstFor(safe, j)).tooManyRequests()).isZero();
    assertThat(ProviderSimulation.run(greedy, provider, 0, worstFor(greedy, j)).tooManyRequests()).isPositive();
  }

  private static List<ProviderSimulation.Call> worstFor(QuotaPlan plan, Duration j) {
    List<ProviderSimulation.Call> onTime = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      onTime.add(new ProviderSimulation.Call(0, 0, 0));
    }
    long[] slots = ProviderSimulation.run(plan, ProviderPolicy.tokenBucket(1000, 1000, Duration.ofSeconds(1)), 0,
        onTime).slotNanos();
    List<ProviderSimulation.Call> worst = new ArrayList<>();
    for (long slot : slots) {
      worst.add(new ProviderSimulation.Call(0, Math.max(0, j.toNanos() - slot), 0));
    }
    return worst;
  }

  @Example
  void theRandomSchedulesFindTheTooSmallMarginToo() {
    int caught = 0;
    int tried = 0;
    for (long seed = 0; seed < 10_000 && caught == 0; seed++) {
      Scenario s = scenario(seed);
      QuotaPlan safe = QuotaPlanner.plan(s.provider(), s.jitter());
      QuotaPlan greedy = new QuotaPlan(safe.capacity() * 1.25 + 1, safe.ratePerSecond(), s.jitter(),
          safe.lateLimit(), 1, 1, "greedy");
      tried++;
      if (ProviderSimulation.run(greedy, s.provider(), s.phaseNanos(), s.calls()).tooManyRequests() > 0) {
        caught++;
      }
    }
    assertThat(caught).as("the generator finds a 429 for a greedy plan within %d schedules", tried).isPositive();
  }
}
