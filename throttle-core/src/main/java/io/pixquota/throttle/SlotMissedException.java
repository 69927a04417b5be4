package io.pixquota.throttle;

import java.io.IOException;

/**
 * An async call's slot went bad between its timer and its send (the client queued it, its state was lost, its rate
 * was cut): nothing was sent, and its {@link AsyncBooking} books again ({@link AsyncBooking#missed}). A transport
 * adapter throws it from its send path and catches it on its callback; a caller of the adapter never sees it.
 */
public final class SlotMissedException extends IOException {
  private static final long serialVersionUID = 1L;

  SlotMissedException(String bucket) {
    super("bucket '" + bucket + "': the slot was missed before the send; booking again");
  }
}
