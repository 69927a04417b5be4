package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.PermitPool.Permit;
import io.pixquota.throttle.store.PermitPool.PermitAnswer;
import io.pixquota.throttle.store.PermitPool.Waiter;
import io.pixquota.throttle.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The pool's claim, on the real script with Redis's clock moved by the test: over random arrivals of both classes,
 * calls of random lengths (always shorter than the lease, as the call timeout makes them), cancellations in line,
 * holders that crash (their call goes on at the provider until it ends; their permit is never given back), and
 * releases delayed past their lease (a partition), the calls in flight at the provider never outnumber the pool.
 * Every waiter asks again after each event, in a random order (they are processes of their own).
 */
class PermitPoolPropertyTest {
  private static final FakeTime TIME = FakeTime.manual(90_000);
  private static final Map<String, Integer> SEEN = new TreeMap<>();
  private static RedisOnFakeTime redis;
  private static int run;

  @BeforeContainer
  static void start() {
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterContainer
  static void stop() {
    redis.close();
    System.out.println("PermitPoolPropertyTest saw: " + SEEN);
    assertThat(SEEN).as("the runs reached every case").containsKeys("granted", "waited", "crashed", "lease ended",
        "late release", "cancelled", "full");
  }

  private static void seen(String what) {
    SEEN.merge(what, 1, Integer::sum);
  }

  /** A call: its waiter, its permit once it has one, when its call ends at the provider, how it ends. */
  private static final class Call {
    final Waiter waiter;
    Permit permit;
    long endsAtMs = -1;
    boolean crashes;
    long releaseDelayMs;

    Call(Waiter waiter) {
      this.waiter = waiter;
    }
  }

  @Property(tries = 25)
  void callsInFlightNeverOutnumberThePool(@ForAll long seed) throws Exception {
    Random r = new Random(seed);
    int capacity = 1 + r.nextInt(6);
    long leaseMs = 2_000;
    RedisPermitPool pool = RedisPermitPool.create(RedissonStore.of(redis.redisson), "prop" + (++run), capacity,
        Duration.ofMillis(leaseMs), "pp-prop:", TIME);
    List<Call> waiting = new ArrayList<>();
    List<Call> running = new ArrayList<>();
    List<long[]> releases = new ArrayList<>(); // {at ms, index in pending}
    List<Call> pending = new ArrayList<>();
    int most = 0;
    for (int step = 0; step < 120; step++) {
      TIME.advanceMillis(r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 50 : 700));
      long now = TIME.micros() / 1000;
      if (r.nextInt(3) > 0) {
        for (int n = r.nextInt(4); n > 0; n--) {
          Priority p = r.nextInt(4) == 0 ? Priority.BATCH : Priority.INTERACTIVE;
          waiting.add(new Call(Waiter.of(p.ordinal())));
        }
      }
      // calls that end: their holder gives the permit back now, later (partitioned), or never (crashed)
      for (Iterator<Call> it = running.iterator(); it.hasNext(); ) {
        Call c = it.next();
        if (c.endsAtMs <= now) {
          it.remove();
          if (!c.crashes) {
            pending.add(c);
            releases.add(new long[] {now + c.releaseDelayMs, pending.size() - 1});
          }
        }
      }
      for (long[] rel : releases) {
        if (rel[0] >= 0 && rel[0] <= now) {
          Call c = pending.get((int) rel[1]);
          boolean held = pool.release(c.permit).toCompletableFuture().get(5, TimeUnit.SECONDS);
          seen(held ? "released" : "late release");
          rel[0] = -1;
        }
      }
      if (!waiting.isEmpty() && r.nextInt(6) == 0) {
        Call gone = waiting.remove(r.nextInt(waiting.size()));
        pool.leave(gone.waiter);
        seen("cancelled");
      }
      List<Call> order = new ArrayList<>(waiting);
      java.util.Collections.shuffle(order, r);
      for (Call c : order) {
        PermitAnswer a = pool.take(c.waiter, null);
        if (a.expired() > 0) {
          seen("lease ended");
        }
        if (a.permit() == null) {
          seen("waited");
          if (a.inUse() >= capacity) {
            seen("full");
          }
          continue;
        }
        seen("granted");
        waiting.remove(c);
        c.permit = a.permit();
        c.endsAtMs = now + 1 + r.nextInt((int) leaseMs - 100); // shorter than the lease: the call timeout's doing
        c.crashes = r.nextInt(8) == 0;
        c.releaseDelayMs = r.nextInt(6) == 0 ? leaseMs + r.nextInt(2_000) : r.nextInt(30);
        if (c.crashes) {
          seen("crashed");
        }
        running.add(c);
      }
      // in flight at the provider: every call started and not ended, crashed or not
      most = Math.max(most, running.size());
      assertThat(running.size()).as("seed %d, step %d: calls in flight, pool of %d", seed, step, capacity)
          .isLessThanOrEqualTo(capacity);
    }
    assertThat(most).isPositive();
  }
}
