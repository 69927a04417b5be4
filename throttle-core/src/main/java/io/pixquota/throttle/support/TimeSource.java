package io.pixquota.throttle.support;

import java.time.Instant;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The SDK's one view of time: a monotonic reading, a way to wait, and the wall clock. Everything that waits or
 * measures a wait (the throttle's sleep until its slot, the retry's backoff, the token's refresh) reads it here, so a
 * test can replace it with a clock it moves by hand and nothing sleeps for real. Guava's {@code SleepingStopwatch} is
 * the model.
 */
public interface TimeSource {
  /** The real clocks: {@link System#nanoTime()}, {@link LockSupport#parkNanos(long)}, {@link Instant#now()}. */
  TimeSource SYSTEM = new TimeSource() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public void sleepNanos(long nanos) throws InterruptedException {
      LockSupport.parkNanos(nanos);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }

    @Override
    public Instant now() {
      return Instant.now();
    }

    @Override
    public Future<?> schedule(Runnable task, long atNanos) {
      return Timer.INSTANCE.schedule(task, atNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    }
  };

  /** How many tasks wait on the process's timer ({@link #SYSTEM}'s {@link #schedule}): for tests and diagnostics. */
  static int systemTimerTasks() {
    return Timer.INSTANCE.getQueue().size();
  }

  /** The process's one timer thread for waits that hold no thread (async calls): tasks on it must not block. */
  final class Timer {
    static final ScheduledThreadPoolExecutor INSTANCE = create();

    private Timer() {}

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "pixquota-timer");
        t.setDaemon(true);
        return t;
      });
      timer.setRemoveOnCancelPolicy(true);
      return timer;
    }
  }

  /** A monotonic reading in nanoseconds; only differences mean anything. */
  long nanoTime();

  /**
   * Waits up to {@code nanos} (it may return earlier: callers loop on their deadline).
   *
   * @throws InterruptedException when the thread is or gets interrupted; the flag is cleared, as usual
   */
  void sleepNanos(long nanos) throws InterruptedException;

  /** The wall clock, for HTTP dates. */
  Instant now();

  /**
   * Runs {@code task} once {@link #nanoTime()} has reached {@code atNanos}, on a timer thread shared by the process
   * (at once if it has passed); {@code Future.cancel} takes it back. Tasks must be short and never block.
   */
  Future<?> schedule(Runnable task, long atNanos);

  /**
   * Waits until {@link #nanoTime()} reaches {@code deadlineNanos}, in steps of at most {@code stepNanos}, calling
   * {@code check} before each step and once more at the end (it may throw to stop the wait).
   */
  default <E extends Exception> void sleepUntil(long deadlineNanos, long stepNanos, Check<E> check)
      throws E, InterruptedException {
    long left;
    while ((left = deadlineNanos - nanoTime()) > 0) {
      check.run();
      sleepNanos(Math.min(left, stepNanos));
    }
    check.run();
  }

  /** A check run between the steps of a wait. */
  @FunctionalInterface
  interface Check<E extends Exception> {
    void run() throws E;
  }
}
