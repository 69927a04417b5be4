package io.pixquota.throttle;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Waiting for a state another thread brings about, in real time, with one deadline and a message that says what was
 * awaited: what the tests of every module use instead of hand-written {@code System.nanoTime()} loops. Published in
 * pixquota-core's test jar.
 */
public final class Awaits {
  private static final long POLL_MILLIS = 5;

  private Awaits() {}

  /**
   * Polls {@code condition} until it holds.
   *
   * @throws AssertionError naming {@code what} when it still does not hold after {@code within}
   */
  public static void until(String what, Duration within, BooleanSupplier condition) throws InterruptedException {
    until(what, within, Duration.ofMillis(POLL_MILLIS), condition);
  }

  /** {@link #until(String, Duration, BooleanSupplier)}, asking every {@code every} (a store that must not be hammered)
      . */
  public static void until(String what, Duration within, Duration every, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + within.toMillis() + " ms: " + what);
      }
      Thread.sleep(every.toMillis());
    }
  }

  /**
   * Calls {@code attempt} until it returns without throwing, and returns its value.
   *
   * @throws AssertionError naming {@code what}, with the last failure as its cause, after {@code within}
   */
  public static <T> T value(String what, Duration within, Callable<T> attempt) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        return attempt.call();
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("not within " + within.toMillis() + " ms: " + what, e);
        }
      }
      Thread.sleep(POLL_MILLIS);
    }
  }
}
