package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.support.Async;
import java.io.IOException;

/**
 * An {@link AsyncBooking}'s permit: the pool's answer read on the store's thread. A permit with the slot decided in
 * the same step goes on as the bucket's answer; a permit alone asks the bucket now; the bucket's refusal in its turn
 * goes on as that refusal (no permit was taken); a place in line waits for its turn.
 */
final class AsyncPermit {
  private AsyncPermit() {}

  static void answered(AsyncBooking asking, Booking booking, PermitPool.PermitAnswer answer, Throwable failure) {
    if (failure != null) {
      Throwable cause = Async.cause(failure);
      if (cause instanceof StoreUnavailableException) {
        asking.metrics().redisError(booking.pool.name());
      }
      booking.pool.leave(booking.waiter); // it may have been given a permit in the answer that did not arrive
      asking.fail(cause instanceof IOException io ? io : new IOException("pool '" + booking.pool.name()
          + "' failed: " + cause, cause));
      return;
    }
    if (answer.permit() != null) {
      booking.permitTaken(answer);
      if (answer.acquisition() != null) {
        asking.answered(answer.acquisition(), null);
      } else {
        try {
          booking.bucket.acquireAsync(booking.cost, booking.askWait(), booking.askOrder).whenComplete(asking::answered);
        } catch (RuntimeException e) {
          asking.fail(new IOException("could not ask bucket '" + booking.bucket.name() + "' for a slot: "
              + e.getMessage(), e));
        }
      }
    } else if (answer.acquisition() != null) {
      asking.answered(answer.acquisition(), null);
    } else {
      asking.waitForPermit(answer.ahead(), answer.firstBackIn());
    }
  }
}
