package io.pixquota.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The bound the "0 x 429" tests assert, checked against the thing it bounds: a provider's token bucket fed with a
 * client bucket's slots, each delayed by a random amount within the jitter; never more refusals than the bound, and
 * the bound reached on the worst schedule (every call of the first burst as late as allowed is not it: the burst
 * itself early and the refill late).
 */
class RefusalBoundTest {
  /** Refusals of a token bucket (capacity, rate per second) starting full, for these arrival times in seconds. */
  private static int refusals(double capacity, double rate, double[] arrivals) {
    double[] sorted = arrivals.clone();
    Arrays.sort(sorted);
    double tokens = capacity;
    double last = sorted.length == 0 ? 0 : Math.min(0, sorted[0]);
    int refused = 0;
    for (double t : sorted) {
      tokens = Math.min(capacity, tokens + rate * (t - last));
      last = t;
      if (tokens >= 1 - 1e-12) {
        tokens -= 1;
      } else {
        refused++;
      }
    }
    return refused;
  }

  /** The slots of a client bucket (capacity, rate) under saturating demand: the burst at 0, then one every 1 / rate. */
  private static double[] slots(double capacity, double rate, int calls) {
    double[] slots = new double[calls];
    for (int i = 0; i < calls; i++) {
      slots[i] = i < (int) capacity ? 0 : (i - (int) capacity + 1 - (capacity - (int) capacity)) / rate;
    }
    return slots;
  }

  @Test
  void noScheduleWithinTheJitterMeetsMoreRefusalsThanTheBound() {
    Random random = new Random(7);
    for (int trial = 0; trial < 2_000; trial++) {
      double capacity = 1 + random.nextInt(10) + (random.nextBoolean() ? 0.005 : 0);
      double rate = 1 + random.nextDouble() * 9;
      double jitter = random.nextDouble() * 0.5;
      double[] arrivals = slots(capacity, rate, 40);
      for (int i = 0; i < arrivals.length; i++) {
        arrivals[i] += random.nextInt(3) == 0 ? jitter : random.nextDouble() * jitter;
      }
      long bound = RefusalBound.allowed(10, 10, capacity, rate, jitter);
      assertThat(refusals(10, 10, arrivals)).as("trial %d: client %.3f + %.3f/s, J %.3f s", trial, capacity, rate,
          jitter).isLessThanOrEqualTo((int) bound);
    }
  }

  @Test
  void withinThePlansJitterTheBoundIsZeroAndBeyondItTheWorstScheduleMeetsIt() {
    // the planner's plan for 10 + 10/s and J = 100 ms: 9.005 + 9.95/s
    assertThat(RefusalBound.allowed(10, 10, 9.005, 9.95, 0.1)).isZero();
    assertThat(RefusalBound.allowed(10, 10, 9.005, 9.95, 0.3)).isEqualTo(2);
    // the worst schedule: the burst's calls on time, every later call as late as the jitter allows... is not worse
    // than the burst late and the refill early: the first calls of the refill land on the burst
    double[] arrivals = slots(9.005, 9.95, 40);
    for (int i = 0; i < arrivals.length; i++) {
      arrivals[i] = arrivals[i] <= 0 ? 0.3 : Math.max(0.3, arrivals[i]);
    }
    assertThat(refusals(10, 10, arrivals)).as("the burst delayed 300 ms onto the first refills").isEqualTo(2);
    assertThatThrownBy(() -> RefusalBound.allowed(10, 10, 8, 11, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rate 11.0 is above the provider's 10.0: no bound holds");
  }
}
