package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.LocalTokenBucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.throttle.internal.StepHash;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a fleet shares besides tokens, step by step on a test clock: replicas with other limits on the same bucket
 * (a rolling deploy, a misconfigured replica), and the provider's refusals (the rate cut, the Retry-After hold, the
 * way back up). On the Java twin of the script over one shared state, as replicas share one Redis hash;
 * {@link ScriptAndJavaStepAgreeTest} holds the script to the same answers.
 */
class FleetBucketTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private final FakeTime time = FakeTime.manual(1_000);
  private final StepHash shared = new StepHash();

  private LocalTokenBucket replica(double capacity, double rate) {
    return new LocalTokenBucket("pix", List.of(Limit.of(capacity, rate)), time::nanoTime, shared, LEASE,
        RateAdaptation.defaults());
  }

  /** Calls at once while they are granted without waiting. */
  private static int burst(TokenBucket bucket) throws Exception {
    int n = 0;
    while (bucket.acquire(1, Duration.ZERO).granted()) {
      n++;
    }
    return n;
  }

  @Test
  void aMisconfiguredReplicaCannotRaiseTheFleetsRate() throws Exception {
    TokenBucket good = replica(8, 9);
    TokenBucket wrong = replica(20, 30); // above the provider's 10 + 10/s
    assertThat(burst(good)).isEqualTo(8);
    assertThat(burst(wrong)).as("the good configuration's tokens are spent: the wrong one's limit is not enough")
        .isZero();
    assertThat(wrong.readings().configurations()).isEqualTo(2);
    int admitted = 0;
    for (int i = 0; i < 200; i++) { // 10 s, both asking every 50 ms
      time.advanceMillis(50);
      admitted += (good.acquire(1, Duration.ZERO).granted() ? 1 : 0) + (wrong.acquire(1, Duration.ZERO).granted()
          ? 1 : 0);
    }
    assertThat(admitted).as("9/s x 10 s, the strictest configuration's rate").isBetween(89, 90);
  }

  @Test
  void aNewConfigurationStartsAsBusyAsTheBucketNotFull() throws Exception {
    TokenBucket old = replica(8, 9);
    assertThat(burst(old)).isEqualTo(8);
    TokenBucket newer = replica(12, 12);
    assertThat(burst(newer)).as("its 12 tokens start as empty as the bucket's 8").isZero();
    time.advanceMillis(500);
    assertThat(newer.acquire(1, Duration.ZERO).remaining()).as("old limit: 4.5 - 1").isCloseTo(3.5, within(1e-9));
  }

  @Test
  void aRollingDeployMovesTheFleetToTheNewSettingsOnceTheOldOnesLease() throws Exception {
    TokenBucket old = replica(8, 9);
    TokenBucket deployed = replica(10, 10);
    old.acquire(1, Duration.ZERO);
    deployed.acquire(1, Duration.ZERO);
    assertThat(deployed.readings().configurations()).isEqualTo(2);
    int whileBoth = 0;
    for (int i = 0; i < 200; i++) { // 10 s, the new replica asking every 50 ms: twice its own rate
      time.advanceMillis(50);
      whileBoth += deployed.acquire(1, Duration.ZERO).granted() ? 1 : 0;
    }
    assertThat(whileBoth).as("held to the old 9/s while it is live: the 6 tokens left + 9/s x 10 s")
        .isBetween(95, 96);
    time.advanceMillis(LEASE.toMillis() - 10_000 + 1); // the old one's last use was 30 s ago: its lease has ended
    deployed.acquire(1, Duration.ZERO);
    assertThat(deployed.readings().configurations()).as("the old configuration stopped counting").isEqualTo(1);
    burst(deployed);
    int after = 0;
    for (int i = 0; i < 200; i++) {
      time.advanceMillis(50);
      after += deployed.acquire(1, Duration.ZERO).granted() ? 1 : 0;
    }
    assertThat(after).as("10/s x 10 s, the new settings").isBetween(99, 100);
  }

  @Test
  void a429CutsTheRateForEveryReplicaOnceAndMovesTheSlotsBookedBeforeItBehindTheRetryAfterInTheirOrder()
      throws Exception {
    TokenBucket a = replica(8, 9);
    TokenBucket b = replica(8, 9);
    burst(a);
    Acquisition booked = a.acquire(1, Duration.ofSeconds(10)); // waits for its slot at 111 ms
    Acquisition refused = b.acquire(1, Duration.ofSeconds(10));
    time.advanceMillis(10); // the provider's 429 comes back
    assertThat(b.providerRefused(refused, Duration.ofSeconds(3))).as("booked under the current rate: a cut")
        .isEqualTo(TokenBucket.Refusal.CUT);
    assertThat(b.readings().rateFactor()).isCloseTo(0.85, within(1e-12));
    assertThat(a.providerRefused(booked, Duration.ofSeconds(3))).as("the same news from another replica: old")
        .isNotEqualTo(TokenBucket.Refusal.CUT);
    assertThat(a.readings().rateFactor()).as("cut once, not twice").isCloseTo(0.85, within(1e-12));
    assertThat(a.validity(booked))
        .as("a slot booked at the old rate is not left on").isEqualTo(TokenBucket.Validity.RATE_CUT);
    assertThat(b.validity(refused)).isEqualTo(TokenBucket.Validity.RATE_CUT);
    long cutAt = refused.decidedAtMicros() + 10_000;
    // moved without a round trip: after the provider's 3 s, at the new rate, in the order they were booked
    Acquisition first = a.retimed(booked);
    Acquisition second = b.retimed(refused);
    assertThat(first.slotMicros()).as("111 ms - 10 ms at 9/s, stretched by 1 / 0.85, after the 3 s")
        .isEqualTo(cutAt + 3_000_000 + (long) Math.ceil((booked.slotMicros() - cutAt) / 0.85));
    assertThat(second.slotMicros()).isEqualTo(cutAt + 3_000_000 + (long) Math.ceil((refused.slotMicros() - cutAt)
        / 0.85));
    assertThat(first.waitTime().toNanos() - booked.waitTime().toNanos())
        .as("its wait longer by as much as its slot moved")
        .isEqualTo((first.slotMicros() - booked.slotMicros()) * 1000);
    assertThat(a.validity(first)).as("a moved slot is the new rate's").isEqualTo(TokenBucket.Validity.VALID);
    Acquisition next = a.acquire(1, Duration.ofSeconds(10));
    assertThat(next.slotMicros() - second.slotMicros())
        .as("a call booked after the cut goes one slot of 0.85 x 9/s after the last one moved")
        .isBetween(130_718L, 130_720L);
    assertThat(a.validity(next)).isNotEqualTo(TokenBucket.Validity.RATE_CUT);
  }

  @Test
  void theRateClimbsBackByItsIncreaseAndNeverAboveTheConfiguredOneNorBelowTheFloor() throws Exception {
    TokenBucket a = replica(8, 9);
    for (int i = 0; i < 20; i++) { // twenty cuts in a row, each on a call booked under the rate it cuts
      Acquisition booked = a.acquire(1, Duration.ofDays(1));
      time.advanceMillis(10);
      a.providerRefused(booked, Duration.ZERO);
    }
    assertThat(a.readings().rateFactor()).as("the floor").isEqualTo(RateAdaptation.DEFAULT_FLOOR);
    time.advanceMillis(10_000);
    a.charge(1e-3);
    assertThat(a.readings().rateFactor()).as("+0.5% of the configured rate per second").isCloseTo(0.30, within(1e-9));
    time.advanceMillis(300_000);
    a.charge(1e-3);
    assertThat(a.readings().rateFactor()).as("never above the configured rate").isEqualTo(1.0);
  }

  @Test
  void withoutRateAdaptationA429ChangesNothing() throws Exception {
    TokenBucket fixed = new LocalTokenBucket("pix", List.of(Limit.of(8, 9)), time::nanoTime, shared, LEASE, null);
    Acquisition a = fixed.acquire(1, Duration.ZERO);
    assertThat(fixed.providerRefused(a, Duration.ofSeconds(5))).isNotEqualTo(TokenBucket.Refusal.CUT);
    assertThat(fixed.acquire(1, Duration.ZERO).waitTime()).isZero();
    assertThat(fixed.readings().rateFactor()).isEqualTo(1.0);
  }

  /**
   * A lone 429 (a cold start's, a blip) costs seconds: the rate is back where it was within the lone recovery (5 s)
   * when nothing follows it. A 429 within the minute after a cut is not lone: the slow climb (+0.5% a second).
   */
  @Test
  void aLone429IsTakenBackWithinSecondsAndOneThatFollowsACutIsNot() throws Exception {
    TokenBucket a = replica(8, 9);
    Acquisition booked = a.acquire(1, Duration.ZERO);
    time.advanceMillis(10);
    assertThat(a.providerRefused(booked, Duration.ZERO)).isEqualTo(TokenBucket.Refusal.CUT);
    assertThat(a.readings().rateFactor()).isCloseTo(0.85, within(1e-12));
    time.advanceMillis(2_500);
    assertThat(a.acquire(1, Duration.ofDays(1)).granted()).isTrue();
    assertThat(a.readings().rateFactor()).as("half way back, 2.5 s later").isCloseTo(0.925, within(1e-12));
    time.advanceMillis(2_500);
    Acquisition again = a.acquire(1, Duration.ofDays(1));
    assertThat(a.readings().rateFactor()).as("back to the configured rate 5 s after a lone cut").isEqualTo(1.0);
    time.advanceMillis(10);
    assertThat(a.providerRefused(again, Duration.ZERO)).as("a second 429 within the minute").isEqualTo(TokenBucket
        .Refusal.CUT);
    assertThat(a.readings().rateFactor()).isCloseTo(0.85, within(1e-12));
    time.advanceMillis(5_000);
    a.charge(1e-3);
    assertThat(a.readings().rateFactor()).as("not lone: +0.5%% a second").isCloseTo(0.875, within(1e-9));
  }

  /**
   * One replica's word is bounded: the replica that made the last cut, while another asks for slots and reports
   * nothing, cannot cut again while half or more of its own calls since (once the hold is over) meet 429s: a replica
   * behind a gateway that answers everything 429. Another replica's 429 still cuts, and so does a replica whose 429s
   * are rare again (a real shortage). A replica alone is never held to this.
   */
  @Test
  void theReplicaThatMadeTheLastCutNeedsAnotherReplicasWordWhileItsOwnCallsKeepMeeting429s() throws Exception {
    LocalTokenBucket broken = replica(8, 9);
    LocalTokenBucket healthy = replica(8, 9);
    Acquisition first = broken.acquire(1, Duration.ZERO);
    time.advanceMillis(10);
    assertThat(broken.providerRefused(first, Duration.ofDays(1))).as("its first 429 counts").isEqualTo(TokenBucket
        .Refusal.CUT);
    assertThat(broken.readings().providerHoldLeft()).as("held the maxProviderHold, not a day")
        .isEqualTo(RateAdaptation.DEFAULT_MAX_PROVIDER_HOLD);
    time.advanceMillis(1);
    healthy.acquire(1, Duration.ofDays(1)); // another replica asks for a slot, and reports nothing
    time.advanceMillis(RateAdaptation.DEFAULT_MAX_PROVIDER_HOLD.toMillis() + 100);
    for (int i = 0; i < 6; i++) { // every call of the broken replica meets a 429
      Acquisition next = broken.acquire(1, Duration.ofDays(1));
      time.advanceMillis(i < 3 ? 500 : 10_000);
      assertThat(broken.providerRefused(next, Duration.ofDays(1))).as("report %d after its cut", i + 1)
          .isNotEqualTo(TokenBucket.Refusal.CUT);
    }
    assertThat(broken.readings().refusalsNotCounted()).isEqualTo(6);
    assertThat(broken.readings().rateFactor()).as("no second cut").isGreaterThan(0.85);
    assertThat(broken.readings().providerHoldLeft()).as("no second hold").isZero();
    for (int i = 0; i < 14; i++) { // its calls go through again: 14 of 20 served since its cut
      broken.acquire(1, Duration.ofDays(1));
    }
    Acquisition rare = broken.acquire(1, Duration.ofDays(1));
    time.advanceMillis(10);
    assertThat(broken.providerRefused(rare, Duration.ZERO)).as("once its 429s are rare, it counts alone again")
        .isEqualTo(TokenBucket.Refusal.CUT);
    Acquisition fromHealthy = healthy.acquire(1, Duration.ofDays(1));
    time.advanceMillis(10);
    assertThat(healthy.providerRefused(fromHealthy, Duration.ZERO)).as("another replica's 429 cuts")
        .isEqualTo(TokenBucket.Refusal.CUT);

    LocalTokenBucket alone = new LocalTokenBucket("alone", List.of(Limit.of(8, 9)), time::nanoTime,
        new StepHash(), LEASE, RateAdaptation.defaults());
    for (int i = 0; i < 3; i++) {
      Acquisition booked = alone.acquire(1, Duration.ofDays(1));
      time.advanceMillis(10);
      assertThat(alone.providerRefused(booked, Duration.ZERO)).as("a replica alone: cut %d", i + 1)
          .isEqualTo(TokenBucket.Refusal.CUT);
    }
  }
}
