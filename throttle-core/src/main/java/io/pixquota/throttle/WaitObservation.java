package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.io.InterruptedIOException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One call's wait for its slot (and permit) as a Micrometer {@link Observation} named {@value #NAME} ("waiting for
 * quota" in a trace): started when the call is booked, stopped when it leaves on its slot or gives up. Low-cardinality
 * tags {@code bucket}, {@code priority} and {@code outcome} (granted, refused, cancelled, unavailable, error); the
 * wait in milliseconds as the high-cardinality {@code wait.ms}. The meters ({@code bacen.throttle.wait}) keep their
 * names; an observation handler may add its own. Ends once.
 */
final class WaitObservation {
  static final String NAME = "pixquota.wait";
  static final WaitObservation NONE = new WaitObservation(null, 0);

  private final Observation observation; // null: not observed
  private final long startNanos;
  private final AtomicBoolean ended = new AtomicBoolean();

  private WaitObservation(Observation observation, long startNanos) {
    this.observation = observation;
    this.startNanos = startNanos;
  }

  /** Starts the wait's observation, under {@code parent} (null: the registry's current one, if any). */
  static WaitObservation start(ObservationRegistry registry, Booking booking, Observation parent, long nowNanos) {
    if (registry == null || registry.isNoop()) {
      return NONE;
    }
    Observation o = Observation.createNotStarted(NAME, registry).contextualName("waiting for quota")
        .lowCardinalityKeyValue("bucket", booking.bucket.name())
        .lowCardinalityKeyValue("priority", booking.priority.name().toLowerCase(Locale.ROOT));
    if (parent != null) {
      o.parentObservation(parent);
    }
    return new WaitObservation(o.start(), nowNanos);
  }

  /** The call leaves on its slot. */
  void left(long nowNanos) {
    end("granted", null, nowNanos);
  }

  /** The call gives up or cannot have a slot: {@code why}. A cancel is an outcome, not an error. */
  void failed(Throwable why, long nowNanos) {
    if (why instanceof InterruptedIOException) {
      end("cancelled", null, nowNanos);
      return;
    }
    end(why instanceof ThrottleRefusedException ? "refused"
        : why instanceof StoreUnavailableException ? "unavailable" : "error", why, nowNanos);
  }

  private void end(String outcome, Throwable why, long nowNanos) {
    if (observation == null || !ended.compareAndSet(false, true)) {
      return;
    }
    observation.lowCardinalityKeyValue("outcome", outcome)
        .highCardinalityKeyValue("wait.ms", Long.toString(Math.max(0, nowNanos - startNanos) / 1_000_000));
    if (why != null) {
      observation.error(why);
    }
    observation.stop();
  }
}
