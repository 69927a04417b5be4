package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.Awaits;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/** The places of a host's blocking calls: handed on in the order the threads came, given up without taking one. */
class WireGateTest {
  private static final long NO_DEADLINE = Long.MAX_VALUE;

  /** A thread that enters {@code gate}, records its name once in, and leaves when told. */
  private static final class Caller {
    final CompletableFuture<Throwable> failed = new CompletableFuture<>();
    final CompletableFuture<Void> release = new CompletableFuture<>();
    final Thread thread;

    Caller(WireGate gate, String name, List<String> in, long deadline, AtomicBoolean canceled) {
      thread = new Thread(() -> {
        try {
          gate.enter(deadline, canceled::get);
        } catch (InterruptedIOException e) {
          failed.complete(e);
          return;
        }
        in.add(name);
        release.join();
        gate.leave();
        failed.complete(null);
      }, name);
      thread.start();
    }

    boolean parkedAt(WireGate gate) {
      return LockSupport.getBlocker(thread) == gate;
    }
  }

  private static Caller parkedCaller(WireGate gate, String name, List<String> in, long deadline,
      AtomicBoolean canceled) throws InterruptedException {
    Caller c = new Caller(gate, name, in, deadline, canceled);
    Awaits.until(name + " parked at the gate", Duration.ofSeconds(10), () -> c.parkedAt(gate));
    return c;
  }

  @Test
  void placesFreedGoToTheWaitersInTheOrderTheyCame() throws Exception {
    WireGate gate = new WireGate(2);
    List<String> in = new CopyOnWriteArrayList<>();
    AtomicBoolean never = new AtomicBoolean();
    Caller a = new Caller(gate, "a", in, NO_DEADLINE, never);
    Awaits.until("a in", Duration.ofSeconds(10), () -> in.size() == 1);
    Caller b = new Caller(gate, "b", in, NO_DEADLINE, never);
    Awaits.until("b in", Duration.ofSeconds(10), () -> in.size() == 2);
    List<Caller> waiting = new ArrayList<>();
    for (String name : new String[] {"c", "d", "e"}) {
      waiting.add(parkedCaller(gate, name, in, NO_DEADLINE, never));
    }
    assertThat(gate.taken()).isEqualTo(2);
    b.release.complete(null);
    Awaits.until("c in", Duration.ofSeconds(10), () -> in.size() == 3);
    assertThat(in.get(2)).isEqualTo("c");
    assertThat(waiting.get(1).parkedAt(gate)).as("d still waits: 2 places, a and c in").isTrue();
    a.release.complete(null); // one place at a time, so that the list's order is the gate's, not the threads' race
    Awaits.until("d in", Duration.ofSeconds(10), () -> in.size() == 4);
    assertThat(waiting.get(2).parkedAt(gate)).as("e still waits").isTrue();
    waiting.get(0).release.complete(null);
    Awaits.until("e in", Duration.ofSeconds(10), () -> in.size() == 5);
    assertThat(in).containsExactly("a", "b", "c", "d", "e");
    waiting.get(1).release.complete(null);
    waiting.get(2).release.complete(null);
    for (Caller c : List.of(a, b, waiting.get(0), waiting.get(1), waiting.get(2))) {
      assertThat(c.failed.get(10, TimeUnit.SECONDS)).isNull();
    }
    assertThat(gate.taken()).as("every place given back").isZero();
  }

  @Test
  void aCancelledWaiterLeavesTheLineTakingNoPlaceAndTheNextGetsIt() throws Exception {
    WireGate gate = new WireGate(1);
    List<String> in = new CopyOnWriteArrayList<>();
    AtomicBoolean never = new AtomicBoolean();
    AtomicBoolean canceled = new AtomicBoolean();
    Caller holder = new Caller(gate, "holder", in, NO_DEADLINE, never);
    Awaits.until("holder in", Duration.ofSeconds(10), () -> in.size() == 1);
    Caller cancelled = parkedCaller(gate, "cancelled", in, NO_DEADLINE, canceled);
    Caller next = parkedCaller(gate, "next", in, NO_DEADLINE, never);
    canceled.set(true);
    LockSupport.unpark(cancelled.thread); // as ThrottledCall.cancel does
    assertThat(cancelled.failed.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class)
        .hasMessage("call canceled while waiting for its turn at the host; not sent");
    holder.release.complete(null);
    Awaits.until("next in", Duration.ofSeconds(10), () -> in.size() == 2);
    assertThat(in).containsExactly("holder", "next");
    next.release.complete(null);
    assertThat(next.failed.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(gate.taken()).isZero();
  }

  @Test
  void anInterruptedWaiterKeepsItsFlagAndAWaiterPastItsDeadlineTimesOutBothTakingNothing() throws Exception {
    WireGate gate = new WireGate(1);
    List<String> in = new CopyOnWriteArrayList<>();
    AtomicBoolean never = new AtomicBoolean();
    Caller holder = new Caller(gate, "holder", in, NO_DEADLINE, never);
    Awaits.until("holder in", Duration.ofSeconds(10), () -> in.size() == 1);
    CompletableFuture<Boolean> flagKept = new CompletableFuture<>();
    Thread interrupted = new Thread(() -> {
      assertThatThrownBy(() -> gate.enter(NO_DEADLINE, never::get)).isInstanceOf(InterruptedIOException.class)
          .hasMessage("interrupted while waiting for its turn at the host; not sent");
      flagKept.complete(Thread.currentThread().isInterrupted());
    });
    interrupted.start();
    Awaits.until("parked", Duration.ofSeconds(10),
        () -> LockSupport.getBlocker(interrupted) == gate);
    interrupted.interrupt();
    assertThat(flagKept.get(10, TimeUnit.SECONDS)).isTrue();
    Caller late = new Caller(gate, "late", in, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20), never);
    assertThat(late.failed.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class)
        .hasMessage("timeout while waiting for its turn at the host; not sent");
    assertThat(gate.taken()).as("the holder's place alone").isEqualTo(1);
    holder.release.complete(null);
    assertThat(holder.failed.get(10, TimeUnit.SECONDS)).isNull();
    assertThat(gate.taken()).isZero();
  }

  @Test
  void aGateHasAtLeastOnePlace() {
    assertThatThrownBy(() -> new WireGate(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("places must be at least 1, was 0");
  }
}
