package io.pixquota.harness;

import java.util.concurrent.locks.LockSupport;

/** Waiting on {@link System#nanoTime()}, which every process of the machine shares (CLOCK_MONOTONIC on Linux). */
public final class Sleep {
  private Sleep() {}

  /** Parks until {@code System.nanoTime()} reaches {@code deadlineNanos}. */
  public static void until(long deadlineNanos) throws InterruptedException {
    long left;
    while ((left = deadlineNanos - System.nanoTime()) > 0) {
      LockSupport.parkNanos(left);
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  /** {@link System#nanoTime()} at the wall-clock instant {@code epochMillis}, as this process sees the two now. */
  public static long nanoTimeAt(long epochMillis) {
    return System.nanoTime() + (epochMillis - System.currentTimeMillis()) * 1_000_000;
  }
}
