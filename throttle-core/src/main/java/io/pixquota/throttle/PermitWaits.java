package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.Acquisition;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The blocking way to a permit: ask the pool (with the slot, in one decision when the pool can), and while it is not
 * the call's turn, wait in the pool's line (checking for a cancel) until it may be, within what is left of the max
 * wait. A call that gives up leaves the line. Holds no lock. Its turn wakes it at once; a cancel is seen within
 * {@code POLL_NANOS} (100 ms: a wait in line can last seconds, and every waiting thread waking each 10 ms cost the
 * demo's replicas 18 points of the provider's throughput at 100 waiters each).
 */
final class PermitWaits {
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  private final SlotWaits waits;

  PermitWaits(SlotWaits waits) {
    this.waits = waits;
  }

  /**
   * The call's permit and the bucket's answer to its slot: from one decision when the pool decided both, else the
   * permit first and the slot after (a refused or failed slot gives the permit back through the caller).
   *
   * @throws ThrottleRefusedException when its max wait ends in the line
   */
  Acquisition take(Booking booking, BooleanSupplier canceled) throws IOException {
    PermitPool pool = booking.pool;
    while (true) {
      check(booking, canceled);
      PermitPool.PermitAnswer answer;
      try {
        answer = pool.take(booking.waiter, booking.slotAsk());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        pool.leave(booking.waiter);
        throw new InterruptedIOException("interrupted while asking pool '" + pool.name() + "' for a permit");
      } catch (StoreUnavailableException e) {
        waits.metrics().redisError(pool.name());
        pool.leave(booking.waiter); // it may have been given a permit in the answer that did not arrive
        throw e;
      }
      if (answer.permit() != null) {
        booking.permitTaken(answer);
        if (answer.acquisition() != null) {
          return answer.acquisition();
        }
        try {
          return waits.acquire(booking.bucket, booking.cost, booking.askWait());
        } catch (IOException e) {
          booking.releasePermit();
          throw e;
        }
      }
      if (answer.acquisition() != null) {
        return answer.acquisition(); // its turn, but the bucket refused the slot: no permit taken
      }
      await(booking, answer, canceled);
    }
  }

  /** Waits in the line until it may be the call's turn; refused when its max wait ends first, or the pool refused. */
  private void await(Booking booking, PermitPool.PermitAnswer answer, BooleanSupplier canceled) throws IOException {
    PermitPool pool = booking.pool;
    Duration left = booking.leftToWait();
    if (left.isZero() || answer.refusedAtOnce()) {
      pool.leave(booking.waiter);
      waits.metrics().permits().refusedCall(pool, booking.priority);
      throw answer.refusedAtOnce()
          ? ThrottleRefusedException.noPermitInTime(pool.name(), answer.ahead(), answer.firstBackIn(), left,
              booking.maxWait)
          : ThrottleRefusedException.noPermit(pool.name(), answer.ahead(), booking.maxWait);
    }
    CompletableFuture<Void> turn = pool.turn(booking.waiter, left).toCompletableFuture();
    try {
      while (!turn.isDone()) {
        check(booking, canceled);
        try {
          turn.get(POLL_NANOS, TimeUnit.NANOSECONDS); // wakes the moment its turn may have come
        } catch (TimeoutException | ExecutionException stillWaiting) {
          // checks for a cancel, and waits on
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      pool.leave(booking.waiter);
      throw new InterruptedIOException("interrupted while waiting for a permit of pool '" + pool.name() + "'");
    }
  }

  private static void check(Booking booking, BooleanSupplier canceled) throws InterruptedIOException {
    if (canceled.getAsBoolean()) {
      booking.pool.leave(booking.waiter);
      throw new InterruptedIOException("call canceled while waiting for a permit; not sent");
    }
  }
}
