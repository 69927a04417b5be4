package io.pixquota.harness;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How late this process's threads wake on this machine, measured while a scenario runs: a daemon thread parks for
 * {@value #PERIOD_MS} ms again and again and keeps the largest overshoot. A thread that waits for a slot wakes
 * that late too, so a wall-clock bound a test asserts is the scenario's own figure plus this measured lag, not a
 * constant that holds only on a quiet machine.
 *
 * <pre>{@code
 * try (SchedulingLag lag = SchedulingLag.start()) {
 *   ... run the scenario ...
 *   double worstMs = lag.maxMs();
 * }
 * }</pre>
 */
public final class SchedulingLag implements AutoCloseable {
  /** How long the probe parks each time. */
  public static final long PERIOD_MS = 5;

  private final AtomicLong maxNanos = new AtomicLong();
  private final Thread probe;
  private volatile boolean running = true;

  private SchedulingLag() {
    probe = new Thread(this::run, "scheduling-lag-probe");
    probe.setDaemon(true);
  }

  /** Starts measuring now. */
  public static SchedulingLag start() {
    SchedulingLag lag = new SchedulingLag();
    lag.probe.start();
    return lag;
  }

  private void run() {
    long period = TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
    while (running) {
      long due = System.nanoTime() + period;
      LockSupport.parkNanos(period);
      long late = System.nanoTime() - due;
      maxNanos.accumulateAndGet(late, Math::max);
    }
  }

  /** The largest overshoot seen so far, in milliseconds. */
  public double maxMs() {
    return maxNanos.get() / 1e6;
  }

  /** Stops the probe; {@link #maxMs()} keeps its figure. */
  @Override
  public void close() {
    running = false;
    LockSupport.unpark(probe);
  }
}
