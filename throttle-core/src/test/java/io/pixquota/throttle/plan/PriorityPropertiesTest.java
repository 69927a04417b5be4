package io.pixquota.throttle.plan;

import static io.pixquota.throttle.plan.FleetSimulation.S;
import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.store.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * Priority classes on one bucket, by closed-loop simulation ({@link FleetSimulation}): interactive callers book as
 * far ahead as they need, batch callers no further than their horizon and ask again when the bucket said a slot would
 * be free. Whatever the mix, the provider's quota holds; an interactive call waits behind batch work for at most the
 * batch horizon plus one slot; batch takes what interactive leaves.
 */
class PriorityPropertiesTest {
  private static final long MS = 1_000_000L;
  private static final long[] HORIZONS = {0, 50 * MS, 100 * MS, 300 * MS};

  /** Any mix of classes, horizons, callers and start and stop times on the planner's settings: zero 429. */
  @Property(tries = 200)
  void noScheduleOfMixedClassesBreaksTheProvidersQuota(@ForAll long seed) {
    Random r = new Random(seed);
    ProviderPolicy provider = ProviderPolicy.tokenBucket(10, 10, Duration.ofSeconds(1));
    long jitter = r.nextInt(101) * MS;
    QuotaPlan plan = QuotaPlanner.plan(provider, Duration.ofMillis(100));
    Limit limit = Limit.of(plan.capacity(), plan.ratePerSecond());
    List<FleetSimulation.Replica> replicas = new ArrayList<>();
    int n = 2 + r.nextInt(3);
    for (int i = 0; i < n; i++) {
      long start = r.nextInt(15) * S + r.nextInt(1000) * MS;
      long stop = start + S + (long) (r.nextDouble() * (30 * S - start - S));
      long horizon = r.nextBoolean() ? -1 : HORIZONS[r.nextInt(HORIZONS.length)];
      replicas.add(new FleetSimulation.Replica(limit, start, stop, 1 + r.nextInt(6), false, horizon));
    }
    FleetSimulation.Outcome o = FleetSimulation.run(new FleetSimulation.Setup(10, 10, 0, 5 * MS, jitter, replicas,
        List.of(), 30 * S), seed);
    assertThat(o.arrivals().stream().filter(a -> !a.accepted()).count()).as("%s", replicas).isZero();
    long[] slots = o.bookings().stream().mapToLong(FleetSimulation.Booking::slotNanos).sorted().toArray();
    for (long t : new long[] {0, 100 * MS, S, 5 * S}) {
      assertThat((double) ProviderSimulation.maxSlotsInWindow(slots, t)).as("window %d ms, %s", t / MS, replicas)
          .isLessThanOrEqualTo(Math.floor(limit.capacity() + limit.refillPerSecond() * t / (double) S + 1e-9));
    }
  }

  /**
   * One interactive caller next to 1-6 batch callers at saturating demand: every interactive call waits at most the
   * batch horizon plus one slot (1 / r, rounded up to the microsecond), and the two classes together use at least 95%
   * of the bucket's rate: batch takes what interactive leaves.
   */
  @Property(tries = 100)
  void interactiveWaitsAtMostTheBatchHorizonPlusOneSlotAndBatchTakesTheRest(@ForAll long seed) {
    Random r = new Random(seed);
    long horizon = HORIZONS[r.nextInt(HORIZONS.length)];
    Limit limit = Limit.of(8, 9);
    List<FleetSimulation.Replica> replicas = List.of(
        new FleetSimulation.Replica(limit, r.nextInt(3000) * MS, 20 * S, 1, false, -1),
        new FleetSimulation.Replica(limit, 0, 20 * S, 1 + r.nextInt(6), false, horizon));
    FleetSimulation.Outcome o = FleetSimulation.run(new FleetSimulation.Setup(1e9, 1e9, 0, 5 * MS,
        r.nextInt(51) * MS, replicas, List.of(), 30 * S), seed);
    long bound = horizon + (long) Math.ceil(S / limit.refillPerSecond() / 1000) * 1000;
    List<FleetSimulation.Booking> interactive = o.bookings().stream().filter(b -> b.replica() == 0).toList();
    assertThat(interactive).isNotEmpty();
    for (FleetSimulation.Booking b : interactive) {
      assertThat(b.slotNanos() - b.decidedNanos()).as("horizon %d ms, booked at %d ms", horizon / MS,
          b.decidedNanos() / MS).isLessThanOrEqualTo(bound);
    }
    long from = 3 * S;
    long to = 20 * S;
    long sent = o.sends().stream().filter(t -> t >= from && t < to).count();
    assertThat((double) sent).as("sends from 3 s to 20 s, horizon %d ms", horizon / MS)
        .isGreaterThanOrEqualTo(0.95 * limit.refillPerSecond() * (to - from) / S);
  }
}
