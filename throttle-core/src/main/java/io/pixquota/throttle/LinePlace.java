package io.pixquota.throttle;

import java.util.concurrent.Future;

/**
 * An async call's place in its class's line on its bucket ({@link AskingLine}): it asks once the call before it has
 * booked or given up, and gives the turn on when it leaves the line itself; its max wait may end while it waits
 * there. Guarded by its {@link AsyncBooking}.
 */
final class LinePlace {
  private final AskingLine.Place place;
  private volatile Future<?> timeout;
  private boolean hasTurn;

  private LinePlace(AskingLine.Place place) {
    this.place = place;
  }

  /** Joins the line of {@code booking}'s class on its bucket. */
  static LinePlace join(SlotWaits waits, Booking booking) {
    return new LinePlace(waits.line().join(booking.bucket));
  }

  /** {@code onTooLong} runs at the call's max wait, {@code onTurn} when the call before it is done. */
  void await(SlotWaits waits, Booking booking, Runnable onTurn, Runnable onTooLong) {
    if (place.before().isDone()) {
      onTurn.run(); // first in line: no time to watch
      return;
    }
    timeout = waits.time().schedule(onTooLong, booking.askedAtNanos() + booking.maxWait.toNanos());
    place.before().whenComplete((ignored, failure) -> onTurn.run());
  }

  /** Its turn came, and the call asks. */
  void take() {
    cancelTimeout();
    hasTurn = true;
  }

  /** The call leaves the line: after its turn, the next asks; before it, the next asks when this one's turn comes. */
  void leave() {
    cancelTimeout();
    if (hasTurn) {
      hasTurn = false;
      place.mine().complete(null);
    }
  }

  private void cancelTimeout() {
    Future<?> t = timeout;
    if (t != null) {
      t.cancel(false);
    }
  }

  /** Its turn came after it left: the next one asks. */
  void pass() {
    place.mine().complete(null);
  }
}
