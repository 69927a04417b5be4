package io.pixquota.throttle.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.PermitPool.PermitAnswer;
import io.pixquota.throttle.store.PermitPool.Waiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * What every {@link PermitPool} promises, on a clock the test moves: the cap holds, the line is served by class, then
 * earliest deadline, then arrival, and its head is told when a permit comes back, a dead holder's lease ends, a late
 * release frees nothing another call holds (each permit its own id), a waiter that leaves gives back what it held, and
 * the readings follow releases. Each backend runs it through a subclass; published in pixquota-core's test jar.
 */
public abstract class PermitPoolContract {
  private static final int PERSON = 0;
  private static final int BATCH = 1;

  /** The clock of every pool this class makes; tests move it. */
  protected abstract FakeTime time();

  /** A new pool of this name, no permit held, on {@link #time()}. */
  protected abstract PermitPool pool(String name, int capacity, Duration lease) throws Exception;

  private static Waiter w(String id) {
    return new Waiter(id, PERSON);
  }

  /**
   * Takes until the answer is {@code done}, for up to 5 s ({@link Awaits}, every 10 ms): a leave is best effort and
   * does not block, so a store's may reach it after the next take.
   */
  private static PermitAnswer takeUntil(PermitPool pool, Waiter waiter, Predicate<PermitAnswer> done)
      throws InterruptedException {
    AtomicReference<PermitAnswer> last = new AtomicReference<>();
    Awaits.until(waiter.id() + "'s answer once the leave has reached the pool", Duration.ofSeconds(5),
        Duration.ofMillis(10), () -> {
          try {
            last.set(pool.take(waiter, null));
          } catch (StoreUnavailableException | InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return done.test(last.get());
        });
    return last.get();
  }

  @Test
  public void theCapHoldsTheLineIsServedByClassThenArrivalAndItsHeadIsToldOfARelease() throws Exception {
    PermitPool pool = pool("cap", 2, Duration.ofSeconds(30));
    pool.preload();
    PermitAnswer a = pool.take(w("a"), null);
    assertThat(a.permit()).isNotNull();
    assertThat(pool.take(w("b"), null).permit()).isNotNull();
    assertThat(pool.take(w("c"), null).permit()).as("2 held: the cap").isNull();
    assertThat(pool.take(w("c"), null).ahead()).isEqualTo(1);
    assertThat(pool.take(new Waiter("d", BATCH), null).ahead()).isEqualTo(2);
    assertThat(pool.take(w("e"), null).ahead()).as("a person goes before the batch").isEqualTo(2);
    assertThat(pool.take(new Waiter("d", BATCH), null).ahead()).as("asking again keeps the place").isEqualTo(3);
    CompletableFuture<Void> turn = pool.turn(w("c"), Duration.ofSeconds(10)).toCompletableFuture();
    assertThat(pool.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
    turn.get(5, TimeUnit.SECONDS);
    assertThat(pool.take(w("e"), null).ahead()).as("not e's turn: c is first").isEqualTo(1);
    assertThat(pool.take(w("c"), null).permit()).isNotNull();
  }

  @Test
  public void withinAClassTheEarliestDeadlineGoesFirstAndAnOldWaitersDeadlineBeatsANewOnes() throws Exception {
    PermitPool pool = pool("deadlines", 1, Duration.ofSeconds(60));
    pool.preload(); // subscribed to the turns before the release publishes one
    PermitAnswer held = pool.take(w("holder"), null);
    Waiter patient = new Waiter("patient", PERSON, Duration.ofSeconds(10));
    Waiter hurried = new Waiter("hurried", PERSON, Duration.ofSeconds(2));
    Waiter batch = new Waiter("batch", BATCH, Duration.ofMillis(500));
    assertThat(pool.take(patient, null).ahead()).isEqualTo(1);
    assertThat(pool.take(batch, null).ahead()).isEqualTo(2);
    assertThat(pool.take(hurried, null).ahead()).as("deadline in 2 s before one in 10 s").isEqualTo(1);
    assertThat(pool.take(patient, null).ahead()).as("the patient one moved back").isEqualTo(2);
    assertThat(pool.take(batch, null).ahead()).as("a class still comes first, whatever its deadline").isEqualTo(3);
    pool.leave(hurried);
    pool.leave(batch);
    assertThat(takeUntil(pool, patient, a -> a.ahead() == 1).ahead()).as("first again once they left").isEqualTo(1);
    for (int s = 0; s < 4; s++) { // 8 s on, asking again within the waiter lease
      time().advance(Duration.ofSeconds(2));
      assertThat(pool.take(patient, null).ahead()).isEqualTo(1);
    }
    Waiter newcomer = new Waiter("newcomer", PERSON, Duration.ofSeconds(3));
    assertThat(pool.take(newcomer, null).ahead()).as("its deadline (in 3 s) after the patient one's (in 2 s)")
        .isEqualTo(2);
    CompletableFuture<Void> turn = pool.turn(patient, Duration.ofSeconds(10)).toCompletableFuture();
    assertThat(pool.release(held.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
    turn.get(5, TimeUnit.SECONDS);
    assertThat(pool.take(newcomer, null).permit()).isNull();
    assertThat(pool.take(patient, null).permit()).as("served before its deadline").isNotNull();
  }

  @Test
  public void aWaiterNoPermitCanReachBeforeItsDeadlineIsRefusedAtOnce() throws Exception {
    PermitPool pool = pool("hopeless", 1, Duration.ofSeconds(60));
    PermitAnswer first = pool.take(w("first"), null);
    Waiter early = new Waiter("early", PERSON, Duration.ofMillis(1));
    assertThat(pool.take(early, null).refusedAtOnce()).as("no permit given back yet: nothing known, it waits")
        .isFalse();
    pool.leave(early);
    time().advance(Duration.ofSeconds(1));
    assertThat(pool.release(first.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue(); // held 1 s
    assertThat(takeUntil(pool, w("second"), a -> a.permit() != null).permit()).as("early left the line").isNotNull();
    time().advance(Duration.ofMillis(100));
    PermitAnswer hurried = pool.take(new Waiter("hurried", PERSON, Duration.ofMillis(500)), null);
    assertThat(hurried.refusedAtOnce()).as("back in 900 ms at the earliest, its deadline in 500").isTrue();
    assertThat(hurried.permit()).isNull();
    assertThat(hurried.firstBackIn().toMillis()).isBetween(890L, 910L);
    PermitAnswer able = pool.take(new Waiter("able", PERSON, Duration.ofSeconds(2)), null);
    assertThat(able.refusedAtOnce()).as("its deadline after the earliest return: it waits").isFalse();
    assertThat(able.ahead()).as("the refused one left the line").isEqualTo(1);
  }

  @Test
  public void aDeadHoldersLeaseEndsAndItsLateReleaseFreesNothingAnotherCallHolds() throws Exception {
    PermitPool pool = pool("lease", 1, Duration.ofSeconds(2));
    PermitAnswer dead = pool.take(w("dead"), null);
    assertThat(pool.take(w("b"), null).ahead()).isEqualTo(1);
    time().advance(Duration.ofMillis(2_001));
    PermitAnswer b = pool.take(w("b"), null);
    assertThat(b.permit()).as("the lease ended: b's turn").isNotNull();
    assertThat(pool.release(dead.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS))
        .as("the dead holder's late release").isFalse();
    assertThat(pool.take(w("c"), null).ahead()).as("freed nothing: b still holds the only permit").isEqualTo(1);
    assertThat(pool.readings().expiredLeases()).isEqualTo(1);
  }

  @Test
  public void aWaiterThatLeavesGivesBackThePermitItHeld() throws Exception {
    PermitPool pool = pool("leave", 1, Duration.ofSeconds(30));
    Waiter holder = w("holder");
    assertThat(pool.take(holder, null).permit()).isNotNull();
    assertThat(pool.take(w("next"), null).ahead()).isEqualTo(1);
    pool.leave(holder);
    assertThat(takeUntil(pool, w("next"), a -> a.permit() != null).permit()).as("the permit the leaver held is free")
        .isNotNull();
    assertThat(pool.readings().inUse()).isEqualTo(1);
  }

  @Test
  public void aReleaseGivesThePermitBackOnceAndTheReadingsFollowIt() throws Exception {
    PermitPool pool = pool("release", 2, Duration.ofSeconds(30));
    PermitAnswer a = pool.take(w("a"), null);
    assertThat(a.inUse()).isEqualTo(1);
    assertThat(pool.readings().capacityInForce()).isEqualTo(2);
    assertThat(pool.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(pool.readings().inUse()).as("nothing held: not the value of the last take").isZero();
    assertThat(pool.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).as("released twice")
        .isFalse();
  }
}
