package io.pixquota.throttle;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Watches the cancel flags of the blocking calls that wait for their slot ({@link BlockingBooking}), for clients that
 * cancel by a flag rather than a callback (OkHttp's {@code Call.isCanceled}, a {@link ThrottleRequest}'s
 * {@code canceled}): one daemon thread reads every waiting call's flag each {@value #POLL_MILLIS} ms and cancels the
 * booking of one that gave up, instead of each waiting thread waking to read its own. The thread runs only while
 * calls wait, on the real clock (a test's fake clock moves the bookings, not this).
 */
final class CancelWatch {
  static final long POLL_MILLIS = 10;
  private static final Set<Watched> WATCHED = ConcurrentHashMap.newKeySet();
  private static final AtomicBoolean RUNNING = new AtomicBoolean();
  private static final ScheduledThreadPoolExecutor EXECUTOR = executor();

  private CancelWatch() {}

  /** How many polls a raised flag waits, at the end of the call's max wait, for its booking to end by itself. */
  private static final int GRACE_POLLS = 10;

  /** A call that waits: watched until {@link Watched#close}. */
  record Watched(BooleanSupplier canceled, AsyncBooking booking, int[] graced) implements AutoCloseable {
    @Override
    public void close() {
      WATCHED.remove(this);
    }

    @Override
    public boolean equals(Object o) {
      return this == o;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }

  /** Watches {@code canceled} for {@code booking} until the handle is closed; a flag that never rises is not. */
  static Watched watch(BooleanSupplier canceled, AsyncBooking booking) {
    Watched w = new Watched(canceled, booking, new int[1]);
    if (canceled != ThrottleRequest.NEVER) {
      WATCHED.add(w);
      if (RUNNING.compareAndSet(false, true)) {
        EXECUTOR.schedule(CancelWatch::poll, POLL_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
    return w;
  }

  private static void poll() {
    for (Watched w : WATCHED) {
      try {
        if (w.canceled().getAsBoolean() && (!w.booking().outOfTime() || ++w.graced()[0] > GRACE_POLLS)) {
          // A flag raised by the client's own timeout as the max wait it set runs out: the booking's timer refuses
          // the call (counted as a refusal) within the grace; a cancel here would race it
          WATCHED.remove(w);
          w.booking().cancel();
        }
      } catch (RuntimeException e) {
        WATCHED.remove(w); // a flag that throws is not read again; its call waits on without it
      }
    }
    RUNNING.set(false);
    if (!WATCHED.isEmpty() && RUNNING.compareAndSet(false, true)) {
      EXECUTOR.schedule(CancelWatch::poll, POLL_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  private static ScheduledThreadPoolExecutor executor() {
    ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "pixquota-cancel-watch");
      t.setDaemon(true);
      return t;
    });
    e.setKeepAliveTime(1, TimeUnit.SECONDS);
    e.allowCoreThreadTimeOut(true);
    return e;
  }
}
