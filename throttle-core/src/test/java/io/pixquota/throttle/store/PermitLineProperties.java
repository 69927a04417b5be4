package io.pixquota.throttle.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.PermitPool.PermitAnswer;
import io.pixquota.throttle.store.PermitPool.Waiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The permit line's order, on the local pool with a clock the test moves (the Redis pool's script follows the same
 * rules: the contract suite runs on both). Waiters of two classes arrive at random times with random max waits, ask
 * again after every event in a random order (as processes of their own would), and leave at their deadline, as the
 * throttle refuses them, or when the pool refuses them at once; holders give their permits back after random call
 * lengths.
 */
class PermitLineProperties {
  private static final int STEP_MS = 50;

  /** A waiter of the simulation: when it came, its deadline, its class, when it got its permit (-1: not yet). */
  private static final class Asker {
    final Waiter waiter;
    final long arrivedMs;
    final long deadlineMs;
    final long holdMs;
    long servedMs = -1;
    long releaseMs = -1;
    boolean gone;
    boolean asked;

    Asker(int i, int rank, long arrivedMs, long maxWaitMs, long holdMs) {
      this.waiter = new Waiter("w" + i, rank, Duration.ofMillis(maxWaitMs));
      this.arrivedMs = arrivedMs;
      this.deadlineMs = arrivedMs + maxWaitMs;
      this.holdMs = holdMs;
    }
  }

  /**
   * No permit goes to a waiter of the same class with a later deadline (or, equal deadlines, a later arrival) than a
   * waiter that asked before and is still in line, and none to a lower class while a higher one waits: whoever is not
   * served by its deadline saw every permit freed before it go to a waiter that had to go first.
   */
  @Property(tries = 200)
  void noPermitGoesToAWaiterThatCouldWaitLongerThanOneInLine(@ForAll @IntRange(min = 1, max = 4) int capacity,
      @ForAll long seed) throws Exception {
    Random random = new Random(seed);
    List<Asker> askers = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      askers.add(new Asker(i, random.nextInt(4) == 0 ? 1 : 0, STEP_MS * random.nextInt(60),
          STEP_MS * (1 + random.nextInt(60)), STEP_MS * (1 + random.nextInt(20))));
    }
    askers.sort(Comparator.comparingLong(a -> a.arrivedMs));
    run(capacity, askers, random, (granted, freeBefore, inLine) -> {
      List<Asker> first = new ArrayList<>();
      for (Asker other : inLine) {
        if (other != granted && (other.waiter.rank() < granted.waiter.rank()
            || other.waiter.rank() == granted.waiter.rank() && (other.deadlineMs < granted.deadlineMs
                || other.deadlineMs == granted.deadlineMs && other.arrivedMs < granted.arrivedMs))) {
          first.add(other);
        }
      }
      assertThat(first.size()).as("%s (deadline %d) served with %d permits free while these had to go first: %s",
          granted.waiter.id(), granted.deadlineMs, freeBefore, first.stream().map(o -> o.waiter.id() + " (deadline "
              + o.deadlineMs + ")").toList()).isLessThan(freeBefore);
    });
  }

  /**
   * Calls of one length that line up behind a full pool, with deadlines some schedule meets (the k-th to start, in
   * deadline order, can start k / capacity call lengths after the pool frees): every one is served by its deadline.
   */
  @Property(tries = 200)
  void aFeasibleSetOfDeadlinesIsMet(@ForAll @IntRange(min = 1, max = 3) int capacity,
      @ForAll @Size(min = 1, max = 30) List<@IntRange(min = 0, max = 40) Integer> slack, @ForAll long seed)
      throws Exception {
    long holdMs = 4 * STEP_MS;
    List<Long> deadlines = new ArrayList<>();
    for (int k = 0; k < slack.size(); k++) { // the k-th start, after the blockers' step, plus slack: feasible
      deadlines.add(STEP_MS + k / capacity * holdMs + (long) slack.get(k) * STEP_MS);
    }
    Random random = new Random(seed);
    Collections.shuffle(deadlines, random); // arrive in any order
    List<Asker> askers = new ArrayList<>();
    for (int i = 0; i < capacity; i++) { // every permit held for the first step: all of them line up first
      askers.add(new Asker(100 + i, 0, 0, 0, STEP_MS));
    }
    for (int i = 0; i < deadlines.size(); i++) {
      askers.add(new Asker(i, 0, 0, deadlines.get(i), holdMs));
    }
    run(capacity, askers, random, (granted, freeBefore, inLine) -> { });
    for (Asker a : askers) {
      assertThat(a.servedMs).as("%s, deadline %d ms", a.waiter, a.deadlineMs).isBetween(0L, a.deadlineMs);
    }
  }

  interface OnGrant {
    /** {@code granted} took a permit when {@code freeBefore} were free, {@code inLine} had asked before it. */
    void granted(Asker granted, int freeBefore, List<Asker> inLine);
  }

  /** Steps the clock by {@link #STEP_MS}: releases, arrivals, departures at the deadline, then every waiter asks. */
  private static void run(int capacity, List<Asker> askers, Random random, OnGrant check) throws Exception {
    FakeTime time = FakeTime.manual(1_000);
    LocalPermitPool pool = new LocalPermitPool("line", capacity, Duration.ofMinutes(10), time);
    long end = askers.stream().mapToLong(a -> a.arrivedMs + a.deadlineMs + 2 * a.holdMs).max().orElse(0);
    List<PermitPool.Permit> held = new ArrayList<>(Collections.nCopies(askers.size(), null));
    for (long now = 0; now <= end; now += STEP_MS) {
      for (int i = 0; i < askers.size(); i++) {
        Asker a = askers.get(i);
        if (a.releaseMs == now) {
          pool.release(held.get(i)).toCompletableFuture().join();
        }
        if (!a.gone && a.servedMs < 0 && now > a.deadlineMs) {
          pool.leave(a.waiter); // refused at its max wait
          a.gone = true;
        }
      }
      List<Asker> arriving = new ArrayList<>();
      List<Asker> inLine = new ArrayList<>();
      for (Asker a : askers) {
        if (!a.gone && a.servedMs < 0 && a.arrivedMs <= now) {
          (a.asked ? inLine : arriving).add(a);
        }
      }
      for (Asker a : arriving) { // those that come ask in the order they came (askers are listed by arrival)
        take(pool, capacity, a, now, held, askers, inLine, check);
        a.asked = true;
        if (a.servedMs < 0) {
          inLine.add(a);
        }
      }
      List<Asker> again = new ArrayList<>(inLine);
      Collections.shuffle(again, random); // then those in line ask again, in any order
      for (Asker a : again) {
        take(pool, capacity, a, now, held, askers, inLine, check);
      }
      time.advanceMillis(STEP_MS);
    }
  }

  private static void take(LocalPermitPool pool, int capacity, Asker a, long now, List<PermitPool.Permit> held,
      List<Asker> askers, List<Asker> inLine, OnGrant check) throws Exception {
    if (a.servedMs >= 0) {
      return;
    }
    PermitAnswer answer = pool.take(a.waiter, null);
    if (answer.refusedAtOnce()) { // the pool expects no permit back before its deadline: it left the line
      a.gone = true;
      inLine.remove(a);
    }
    if (answer.permit() != null) {
      a.servedMs = now;
      a.releaseMs = now + a.holdMs;
      held.set(askers.indexOf(a), answer.permit());
      inLine.remove(a);
      check.granted(a, capacity - answer.inUse() + 1, inLine);
    }
  }
}
