package io.pixquota.throttle;

import io.pixquota.throttle.support.TimeSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * A clock the test moves by hand, for everything the SDK times: its monotonic reading is nanoseconds since the epoch,
 * so the same value serves as a bucket's client clock ({@link #clock()}), as a Redis server's wall clock
 * ({@link #onChange}) and as the interceptor's and retry's {@link TimeSource}. Nothing sleeps for real:
 * <ul>
 *   <li>{@link #autoAdvancing} time moves by exactly what a caller sleeps, at once, and every sleep is logged
 *       ({@link #sleeps()}): for one caller at a time;</li>
 *   <li>{@link #manual} time moves only when the test says, and sleepers wait for it ({@link #awaitSleepers}): for a
 *       test that interrupts or cancels a waiter.</li>
 * </ul>
 */
public final class FakeTime implements TimeSource {
  private final boolean autoAdvance;
  private final List<Long> sleeps = new ArrayList<>();
  private final List<LongConsumer> listeners = new ArrayList<>();
  private long nanos;
  private int sleepers;
  private int sleepCalls;
  private final PriorityQueue<Scheduled> scheduled = new PriorityQueue<>(
      Comparator.comparingLong(Scheduled::atNanos).thenComparingLong(Scheduled::order));
  private long scheduledCount;

  private FakeTime(double epochSeconds, boolean autoAdvance) {
    this.nanos = (long) (epochSeconds * 1e9);
    this.autoAdvance = autoAdvance;
  }

  /** Sleeps advance the time by what they ask. */
  public static FakeTime autoAdvancing(double epochSeconds) {
    return new FakeTime(epochSeconds, true);
  }

  /** Sleeps wait until the test advances the time past their end. */
  public static FakeTime manual(double epochSeconds) {
    return new FakeTime(epochSeconds, false);
  }

  @Override
  public synchronized long nanoTime() {
    return nanos;
  }

  public synchronized long micros() {
    return Math.floorDiv(nanos, 1000);
  }

  @Override
  public Instant now() {
    return Instant.EPOCH.plusNanos(nanoTime());
  }

  @Override
  public synchronized void sleepNanos(long n) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    sleeps.add(n);
    sleepCalls++;
    notifyAll();
    long until = nanos + n;
    if (autoAdvance) {
      setNanos(until);
      return;
    }
    sleepers++;
    notifyAll();
    try {
      while (nanos < until) {
        wait();
      }
    } finally {
      sleepers--;
    }
  }

  /** Every sleep asked for so far, in nanoseconds, in order; then forgets them. */
  public synchronized List<Long> sleeps() {
    List<Long> copy = List.copyOf(sleeps);
    sleeps.clear();
    return copy;
  }

  public void advance(Duration d) {
    long to;
    synchronized (this) {
      to = nanos + d.toNanos();
    }
    setNanos(to);
  }

  public void advanceMillis(long millis) {
    advance(Duration.ofMillis(millis));
  }

  /** Sets the time, forwards or backwards (a replica whose clock is late, a failover to a node that is behind). */
  public void setSeconds(double epochSeconds) {
    setNanos((long) (epochSeconds * 1e9));
  }

  private void setNanos(long value) {
    synchronized (this) {
      nanos = value;
      listeners.forEach(l -> l.accept(Math.floorDiv(value, 1000)));
      notifyAll();
    }
    runDue();
  }

  /**
   * Runs {@code task} on the thread that moves the time past {@code atNanos} (or at once, on this thread, if it has
   * passed), in order of their times. On an {@link #autoAdvancing} clock the wait is a sleep: logged in
   * {@link #sleeps()}, and the time moves to {@code atNanos} at once.
   */
  @Override
  public Future<?> schedule(Runnable task, long atNanos) {
    FutureTask<Void> future = new FutureTask<>(task, null);
    long moveTo;
    synchronized (this) {
      scheduled.add(new Scheduled(atNanos, scheduledCount++, future));
      moveTo = autoAdvance && atNanos > nanos ? atNanos : Long.MIN_VALUE;
      if (moveTo != Long.MIN_VALUE) {
        sleeps.add(atNanos - nanos);
      }
    }
    if (moveTo != Long.MIN_VALUE) {
      setNanos(moveTo);
    } else {
      runDue();
    }
    return future;
  }

  /** How many scheduled tasks wait for their time. */
  public synchronized int scheduledTasks() {
    scheduled.removeIf(s -> s.task().isCancelled());
    return scheduled.size();
  }

  private void runDue() {
    while (true) {
      Scheduled next;
      synchronized (this) {
        next = scheduled.peek();
        if (next == null || next.atNanos() > nanos) {
          return;
        }
        scheduled.poll();
      }
      next.task().run(); // outside the lock: the task may read the clock or schedule again
    }
  }

  private record Scheduled(long atNanos, long order, FutureTask<Void> task) {}

  /** Calls {@code listener} with the time in microseconds now and at every change. */
  public synchronized void onChange(LongConsumer listener) {
    listeners.add(listener);
    listener.accept(micros());
  }

  /** Waits (really, at most 10 s) until {@code count} threads sleep on this clock. */
  public void awaitSleepers(int count) throws InterruptedException {
    await(() -> sleepers, count, "threads sleep");
  }

  /**
   * Waits (really, at most 10 s) until {@code count} tasks wait on this clock's {@link #schedule}: e.g. calls parked
   * until their slot, whose booking waits on the clock's timer.
   */
  public void awaitScheduled(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int now;
    while ((now = scheduledTasks()) < count) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(now + " tasks scheduled on the fake clock, expected " + count);
      }
      Thread.sleep(1);
    }
  }

  /** How many sleeps in all have begun on this clock. */
  public synchronized int sleepCalls() {
    return sleepCalls;
  }

  /** Waits (really, at most 10 s) until {@code count} sleeps in all have begun on this clock. */
  public void awaitSleepCalls(int count) throws InterruptedException {
    await(() -> sleepCalls, count, "sleeps began");
  }

  private synchronized void await(IntSupplier value, int count, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (value.getAsInt() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError(value.getAsInt() + " " + what + " on the fake clock, expected " + count);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }

  /** The same time as a {@link Clock}, for a bucket's client clock. */
  public Clock clock() {
    return new Clock() {
      @Override
      public Instant instant() {
        return now();
      }

      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
      }
    };
  }
}
