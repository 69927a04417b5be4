package io.pixquota.throttle.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.WindowAudit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What every {@link TokenBucket} promises, step by step on one clock the test moves ({@link #time}): nothing sleeps.
 * Bucket4j's shared distributed-bucket tests are the model: each implementation runs this class through a subclass
 * that says how to make a bucket on {@link #time}; published in pixquota-core's test jar for every backend module.
 * Burst 8, 9 tokens per second unless a test says otherwise; the
 * clock starts at 1000 s after the epoch.
 */
public abstract class TokenBucketContract {
  protected static final Duration LONG = Duration.ofMinutes(10);

  /** The clock of every bucket this class makes; tests move it. */
  protected final FakeTime time = FakeTime.autoAdvancing(1_000);

  /** A new, full bucket of this name and these limits, whose clock is {@link #time}. */
  protected abstract TokenBucket bucket(String name, List<Limit> limits) throws Exception;

  /** The same with shares within the bucket (issue 46): each flow's weight, "*" among them. */
  protected abstract TokenBucket bucket(String name, List<Limit> limits, Map<String, Double> shares)
      throws Exception;

  private TokenBucket bucket(double capacity, double rate) throws Exception {
    return bucket("pix", List.of(Limit.of(capacity, rate)));
  }

  private static long waitMicros(Acquisition a) {
    return a.waitTime().toNanos() / 1000;
  }

  @Test
  public void burstOfCapacityPassesAtOnceAndTheNextWaitsOneOverRate() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    for (int i = 1; i <= 8; i++) {
      Acquisition a = bucket.acquire(1, Duration.ZERO);
      assertThat(a.granted()).as("call %d", i).isTrue();
      assertThat(a.waitTime()).as("call %d", i).isZero();
      assertThat(a.remaining()).as("call %d", i).isCloseTo(8 - i, within(1e-9));
      assertThat(a.slotMicros()).as("slot of call %d: now", i).isEqualTo(time.micros());
      assertThat(a.answeredAtNanos()).as("answer stamped on the bucket's clock").isEqualTo(time.nanoTime());
    }
    Acquisition ninth = bucket.acquire(1, LONG);
    assertThat(ninth.granted()).isTrue();
    assertThat(waitMicros(ninth)).isEqualTo(111_112); // ceil(1e6 / 9)
    assertThat(ninth.remaining()).isCloseTo(-1, within(1e-9));
    assertThat(ninth.slotMicros()).isEqualTo(time.micros() + 111_112);
    Acquisition tenth = bucket.acquire(1, LONG);
    assertThat(waitMicros(tenth)).isEqualTo(222_223);
    assertThat(tenth.slotMicros() - ninth.slotMicros()).isEqualTo(111_111);
  }

  /** Async bookings asked for in a row, without waiting for any answer: the same slots, in the order asked. */
  @Test
  public void asyncBookingsGetTheSameSlotsInTheOrderTheyWereAskedFor() throws Exception {
    TokenBucket bucket = bucket(3, 10);
    List<CompletableFuture<Acquisition>> asked = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      asked.add(bucket.acquireAsync(1, LONG).toCompletableFuture());
    }
    for (int i = 0; i < 40; i++) {
      Acquisition a = asked.get(i).get(10, TimeUnit.SECONDS);
      assertThat(a.granted()).isTrue();
      assertThat(waitMicros(a)).as("booking %d", i).isEqualTo(i < 3 ? 0 : (i - 2) * 100_000L);
    }
    assertThat(bucket.refundAsync(1).toCompletableFuture().get(10, TimeUnit.SECONDS)).isCloseTo(-36, within(1e-9));
    assertThatThrownBy(() -> bucket.acquireAsync(0, LONG)).as("bad input before any I/O")
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  public void partialRefillAfterAGivenInterval() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    for (int i = 0; i < 8; i++) {
      bucket.acquire(1, Duration.ZERO);
    }
    time.advanceMillis(500); // + 4.5 tokens
    Acquisition a = bucket.acquire(1, Duration.ZERO);
    assertThat(a.granted()).isTrue();
    assertThat(a.remaining()).isCloseTo(3.5, within(1e-9));
    time.advanceMillis(100); // + 0.9
    assertThat(bucket.acquire(4, Duration.ZERO).remaining()).isCloseTo(0.4, within(1e-9));
    Acquisition short1 = bucket.acquire(1, Duration.ZERO);
    assertThat(short1.granted()).isFalse();
    assertThat(waitMicros(short1)).isEqualTo(66_667); // 0.6 / 9 s
  }

  @Test
  public void longIdleNeverExceedsCapacity() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO);
    time.advance(Duration.ofHours(5));
    Acquisition a = bucket.acquire(1, Duration.ZERO);
    assertThat(a.remaining()).isCloseTo(7, within(1e-9));
    assertThat(bucket.acquire(7, Duration.ZERO).granted()).isTrue();
    assertThat(bucket.acquire(1, Duration.ZERO).granted()).isFalse();
  }

  @Test
  public void fractionalCostOfTwoAndAHalf() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    assertThat(bucket.acquire(2.5, Duration.ZERO).remaining()).isCloseTo(5.5, within(1e-9));
    assertThat(bucket.acquire(2.5, Duration.ZERO).remaining()).isCloseTo(3.0, within(1e-9));
    assertThat(bucket.acquire(2.5, Duration.ZERO).remaining()).isCloseTo(0.5, within(1e-9));
    Acquisition fourth = bucket.acquire(2.5, LONG);
    assertThat(fourth.granted()).isTrue();
    assertThat(waitMicros(fourth)).isEqualTo(222_223); // (2.5 - 0.5) / 9 s
    assertThat(fourth.remaining()).isCloseTo(-2.0, within(1e-9));
  }

  @Test
  public void aCallThatWouldWaitTooLongIsRefusedAndConsumesNothing() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO);
    Acquisition refused = bucket.acquire(2, Duration.ofMillis(100));
    assertThat(refused.granted()).isFalse();
    assertThat(waitMicros(refused)).isEqualTo(222_223);
    assertThat(refused.remaining()).isCloseTo(0, within(1e-9));
    // Nothing was booked: the same request with room to wait gets exactly the slot the refusal quoted.
    Acquisition granted = bucket.acquire(2, Duration.ofMillis(300));
    assertThat(granted.granted()).isTrue();
    assertThat(waitMicros(granted)).isEqualTo(222_223);
    assertThat(granted.slotMicros()).isEqualTo(refused.slotMicros());
  }

  @Test
  public void aMaxWaitOfCenturiesMeansForeverWithoutOverflow() throws Exception {
    TokenBucket bucket = bucket(1, 0.001);
    bucket.acquire(1, Duration.ZERO);
    Acquisition a = bucket.acquire(1, Duration.ofDays(365L * 300_000_000));
    assertThat(a.granted()).isTrue();
    assertThat(waitMicros(a)).isEqualTo(1_000_000_000); // 1 / 0.001 s
  }

  /**
   * Whether the bucket's clock is its store's own (Redis's TIME, or the local bucket's), rather than a caller's clock
   * capped at the store's: then a clock that goes back more than 1 s is the store's clock going back (a failover to
   * a node behind, a clock stepped back), and the bucket takes it as the clock rather than giving no refill until it
   * catches up.
   */
  protected boolean clockIsTheStores() {
    return false;
  }

  @Test
  public void lateClockMintsNoToken() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO); // drained at t = 1000 s
    time.setSeconds(990); // a replica whose clock is 10 s late, or a failover to a node 10 s behind
    Acquisition late = bucket.acquire(1, Duration.ZERO);
    assertThat(late.granted()).isFalse();
    assertThat(waitMicros(late)).isEqualTo(111_112); // as if no time had passed, not 10 s of refill
    time.setSeconds(1000.5); // back to the right time
    double remaining = bucket.acquire(1, Duration.ZERO).remaining();
    if (clockIsTheStores()) {
      // The store's clock went back and then forward: the forward jump counts as time that passed, as any jump of a
      // clock forward does, so it refills at most one burst (here all 8); never more.
      assertThat(remaining).isCloseTo(7, within(1e-9));
    } else {
      assertThat(remaining).as("refill counts from 1000 s, so 4.5 tokens").isCloseTo(3.5, within(1e-9));
    }
  }

  @Test
  public void aStoreClockThatWentBackAMinuteIsTheClockWithoutAMinuteOfNoRefill() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO); // drained at t = 1000 s
    time.setSeconds(940); // the store's clock stepped back a minute (or its state says 60 s ahead of it)
    Acquisition a = bucket.acquire(1, Duration.ofMinutes(2));
    if (clockIsTheStores()) {
      assertThat(waitMicros(a)).as("one token's wait: the new clock, no refill across the jump")
          .isEqualTo(111_112);
      time.setSeconds(941);
      assertThat(bucket.acquire(1, Duration.ZERO).granted()).as("refilling again a second later").isTrue();
    } else {
      assertThat(waitMicros(a)).as("a caller's clock 60 s late finds the store's time: one token's wait")
          .isEqualTo(111_112);
    }
  }

  @Test
  public void earlyClockFollowedByNormalOneMintsNoneEither() throws Exception {
    TokenBucket bucket = bucket(8, 9);
    bucket.acquire(8, Duration.ZERO); // drained at t = 1000 s
    time.setSeconds(1000.5); // an early replica sees 4.5 tokens already
    assertThat(bucket.acquire(4, Duration.ZERO).remaining()).isCloseTo(0.5, within(1e-9));
    // The replica with the right clock, still at 1000.25 and then at 1000.5, finds no refill of its own.
    time.setSeconds(1000.25);
    Acquisition normal = bucket.acquire(1, Duration.ZERO);
    assertThat(normal.granted()).isFalse();
    assertThat(normal.remaining()).isCloseTo(0.5, within(1e-9));
    time.setSeconds(1000.5);
    assertThat(bucket.acquire(1, Duration.ZERO).granted()).isFalse();
    // 4 tokens granted over [1000, 1000.5]: within r * 0.5 = 4.5, nothing minted twice.
  }

  @Test
  public void severalLimitsAreCheckedTogetherAndTheLargestWaitWins() throws Exception {
    TokenBucket bucket = bucket("pix", List.of(Limit.of(5, 10), Limit.of(8, 1)));
    assertThat(bucket.limits()).containsExactly(Limit.of(5, 10), Limit.of(8, 1));
    for (int i = 0; i < 5; i++) {
      assertThat(bucket.acquire(1, Duration.ZERO).waitTime()).isZero();
    }
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(100_000); // limit 1: 1/10 s
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(200_000);
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(300_000);
    // 9th call: limit 1 needs 0.4 s, limit 2 (8 tokens, 1/s) is empty and needs 1 s.
    Acquisition ninth = bucket.acquire(1, LONG);
    assertThat(waitMicros(ninth)).isEqualTo(1_000_000);
    // Limit 1 books the call at 1 s too: by then it could not hold more than its 5, so 5 - 10 x 1 - 1 = -6 now
    // (it would be 4 at 1 s: full less this call). Keeping -3 - 1 = -4 would let it lend 2 tokens it never had to
    // a later call that other limits let through sooner.
    assertThat(ninth.remaining()).isCloseTo(-6, within(1e-9));
  }

  @Test
  public void chargeAfterTheFactDelaysLaterCallersAndRefundNeverExceedsCapacity() throws Exception {
    TokenBucket bucket = bucket(10, 10);
    bucket.acquire(1, Duration.ZERO);
    assertThat(bucket.charge(19)).isCloseTo(-10, within(1e-9)); // a 404 that costs 20 in all
    assertThat(waitMicros(bucket.acquire(1, LONG))).isEqualTo(1_100_000);
    assertThat(bucket.refund(5)).isCloseTo(-6, within(1e-9));
    assertThat(bucket.refund(100)).isCloseTo(10, within(1e-9));
  }

  @Test
  public void badCostAndMaxWaitAreRefusedAndLeaveTheBucketUntouched() throws Exception {
    TokenBucket bucket = bucket("pix", List.of(Limit.of(8, 9), Limit.of(20, 1)));
    assertThatThrownBy(() -> bucket.acquire(0, Duration.ZERO)).isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost must be > 0 and <= capacity 8.0, but was 0.0");
    assertThatThrownBy(() -> bucket.acquire(8.5, Duration.ZERO))
        .hasMessage("cost must be > 0 and <= capacity 8.0, but was 8.5");
    assertThatThrownBy(() -> bucket.acquire(Double.NaN, Duration.ZERO))
        .hasMessage("cost must be > 0 and <= capacity 8.0, but was NaN");
    assertThatThrownBy(() -> bucket.acquire(-1, Duration.ZERO))
        .hasMessage("cost must be > 0 and <= capacity 8.0, but was -1.0");
    assertThatThrownBy(() -> bucket.acquire(1, Duration.ofMillis(-1)))
        .isExactlyInstanceOf(IllegalArgumentException.class).hasMessage("maxWait must be >= 0, but was PT-0.001S");
    assertThatThrownBy(() -> bucket.acquire(1, null)).isExactlyInstanceOf(NullPointerException.class)
        .hasMessage("maxWait cannot be null");
    assertThatThrownBy(() -> bucket.charge(-2)).isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost must be positive and finite, but was -2.0");
    assertThatThrownBy(() -> bucket.charge(Double.POSITIVE_INFINITY))
        .hasMessage("cost must be positive and finite, but was Infinity");
    assertThatThrownBy(() -> bucket.refund(0)).hasMessage("cost must be positive and finite, but was 0.0");
    assertThatThrownBy(() -> bucket.charge(1e300)).isExactlyInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost must be at most 1.0E12, but was 1.0E300");
    Acquisition all = bucket.acquire(8, Duration.ZERO);
    assertThat(all.granted()).as("nothing was taken by the refused calls").isTrue();
    assertThat(all.remaining()).isCloseTo(0, within(1e-9));
  }

  @Test
  public void simulatedOverloadKeepsEveryWindowWithinBurstPlusRateTimesLength() throws Exception {
    double capacity = 8;
    double rate = 9;
    TokenBucket bucket = bucket(capacity, rate);
    WindowAudit audit = new WindowAudit();
    Random random = new Random(7);
    double[] costs = {1, 1, 1, 2.5, 0.5};
    for (int i = 0; i < 1500; i++) {
      time.advanceMillis(random.nextInt(80)); // ~25 calls/s of ~1.2 tokens against 9/s
      double cost = costs[random.nextInt(costs.length)];
      audit.add(bucket.acquire(cost, Duration.ofMillis(random.nextInt(3000))), cost);
    }
    assertThat(audit.size()).as("granted calls").isGreaterThan(400);
    for (long windowMicros : new long[] {0, 50_000, 100_000, 1_000_000, 5_000_000, 20_000_000}) {
      double bound = capacity + rate * windowMicros / 1e6 + 1e-6;
      assertThat(audit.maxInWindow(windowMicros)).as("window %d us", windowMicros).isLessThanOrEqualTo(bound);
    }
    assertThat(audit.maxInWindow(20_000_000)).as("and nearly all of it is used")
        .isGreaterThan(0.95 * (capacity + rate * 20));
  }

  @Test
  public void theExtremesOfTheValidRangeNeverBreakTheArithmetic() throws Exception {
    TokenBucket bucket = bucket("extreme", List.of(Limit.of(1e12, 1e-6)));
    assertThat(bucket.acquire(1e12, Duration.ZERO).granted()).isTrue();
    for (int i = 0; i < 3; i++) {
      assertThat(bucket.charge(1e12)).isCloseTo(-(i + 1) * 1e12, within(1.0));
    }
    Acquisition far = bucket.acquire(1, LONG);
    assertThat(far.granted()).isFalse();
    assertThat(waitMicros(far)).as("capped at 2^53 - 1 microseconds, about 285 years").isEqualTo((1L << 53) - 1);
    assertThat(bucket.refund(1e12)).isCloseTo(-2e12, within(1.0));
    assertThat(bucket.acquire(1, Duration.ofDays(365L * 300_000_000)).granted()).as("forever is long enough")
        .isTrue();
  }

  @Test
  public void nameAndLimitsAreTheConfiguredOnes() throws Exception {
    TokenBucket bucket = bucket("reads", List.of(Limit.of(3, 0.5)));
    assertThat(bucket.name()).isEqualTo("reads");
    assertThat(bucket.limits()).containsExactly(Limit.of(3, 0.5));
  }

  @Test
  public void aPoolBesideTheBucketIsTheStoresChoiceAndCapsCallsInFlight() throws Exception {
    PermitPool pool = bucket(8, 9).permitPool("pix-spi", 1, Duration.ofSeconds(30));
    assertThat(pool.name()).isEqualTo("pix-spi");
    assertThat(pool.capacity()).isEqualTo(1);
    PermitPool.PermitAnswer first = pool.take(PermitPool.Waiter.of(0), null);
    assertThat(first.permit()).isNotNull();
    assertThat(pool.take(PermitPool.Waiter.of(0), null).permit()).as("one in flight: the cap").isNull();
    assertThat(pool.release(first.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
  }

  /** Checkout 6/s, the merchant API 3/s, other flows 0 (they only borrow), of a bucket of 8 + 9/s. */
  private static final Map<String, Double> SHARES = Map.of("checkout", 6.0, "merchant-api", 3.0, "*", 0.0);

  /**
   * Shares (issue 46): checkout asks, then the merchant API storms, 40 calls that may wait as long as it takes, and
   * borrows what checkout does not use now, never the call checkout keeps while it asks: checkout's next call goes at
   * once, from its own share, where a bucket without shares would put it behind the storm (about 3.5 s). A flow that
   * stopped asking lends all it holds.
   */
  @Test
  public void aFlowWithinItsShareGoesAtOnceWhileAnotherStorms() throws Exception {
    TokenBucket bucket = bucket("pix", List.of(Limit.of(8, 9)), SHARES);
    assertThat(bucket.forFlow("checkout").acquire(1, Duration.ZERO).tokensOf()).isEqualTo("checkout");
    TokenBucket storm = bucket.forFlow("merchant-api");
    long borrowed = 0;
    Acquisition last = null;
    for (int i = 0; i < 40; i++) {
      last = storm.acquire(1, LONG);
      assertThat(last.granted()).isTrue();
      borrowed += "merchant-api".equals(last.tokensOf()) ? 0 : 1;
    }
    assertThat(borrowed).as("the storm borrowed what checkout and the others did not keep").isEqualTo(3);
    assertThat(waitMicros(last)).as("the rest booked on its own 3/s").isGreaterThan(10_000_000);
    Acquisition checkout = bucket.forFlow("checkout").acquire(1, Duration.ZERO);
    assertThat(checkout.granted()).isTrue();
    assertThat(checkout.waitTime()).isZero();
    assertThat(checkout.tokensOf()).isEqualTo("checkout");
    Acquisition unnamed = bucket.forFlow("reports").acquire(1, Duration.ofSeconds(1));
    assertThat(unnamed.granted()).as("a flow of weight 0 with nothing to borrow: refused").isFalse();
    time.advanceMillis(600); // checkout's share refills 3.6; it has not asked for three slots of its rate (500 ms)
    assertThat(bucket.forFlow("reports").acquire(1, Duration.ZERO).tokensOf()).as("it borrows checkout's spare")
        .isEqualTo("checkout");
  }

  /** A flow alone borrows the whole bucket, as a bucket without shares would give it, at 95% or more over 10 s. */
  @Test
  public void aFlowAloneBorrowsWhatTheOthersLeave() throws Exception {
    TokenBucket checkout = bucket("pix", List.of(Limit.of(8, 9)), SHARES).forFlow("checkout");
    int granted = 0;
    for (int i = 0; i < 200; i++) {
      granted += checkout.acquire(1, Duration.ZERO).granted() ? 1 : 0;
      time.advanceMillis(50);
    }
    assertThat(granted).as("of the bucket's 8 + 9/s over 10 s").isBetween(93, 98);
  }

  /** A refund goes back to the flow's own share; a bucket without shares gives every flow the bucket itself. */
  @Test
  public void aRefundGoesBackToItsFlowsShare() throws Exception {
    TokenBucket bucket = bucket("pix", List.of(Limit.of(8, 9)), SHARES);
    bucket.forFlow("merchant-api").acquire(1, Duration.ZERO); // it asks: it keeps its last call
    TokenBucket checkout = bucket.forFlow("checkout");
    for (int i = 0; i < 4; i++) {
      assertThat(checkout.acquire(1, Duration.ZERO).tokensOf()).isEqualTo("checkout");
    }
    assertThat(checkout.acquire(1, Duration.ZERO).tokensOf()).as("its own share spent: it borrows")
        .isNotEqualTo("checkout");
    checkout.refund(1);
    assertThat(checkout.acquire(1, Duration.ZERO).tokensOf()).isEqualTo("checkout");
    TokenBucket plain = bucket("plain", List.of(Limit.of(8, 9)));
    assertThat(plain.forFlow("checkout")).isSameAs(plain);
    assertThat(plain.acquire(1, Duration.ZERO).tokensOf()).isNull();
  }
}
