package io.pixquota.mock;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A provider incident: for a while, every API Pix request (after its bearer token, before the quota) is answered
 * with one status, 503 or a 429 of the provider's own (not its quota's), with {@code Retry-After} when given. The
 * answers it sent are counted here, not in the audit (which stays the quota's view: requests accepted, the quota's
 * 429s). Threadsafe.
 */
final class Incident {
  private record Window(long untilNanos, int status, long retryAfterSeconds) {}

  private volatile Window window = new Window(0, 0, 0); // status 0: none
  private final AtomicLong answered = new AtomicLong();

  /**
   * From now, for {@code millis}, requests are answered {@code status}.
   *
   * @throws IllegalArgumentException for a status other than 429 or 5xx, a length outside 1 ms..1 h, or a negative
   *                                  Retry-After
   */
  void start(int status, long millis, long retryAfterSeconds) {
    if (status != 429 && (status < 500 || status > 599)) {
      throw new IllegalArgumentException("an incident's status must be 429 or 5xx, but was " + status);
    }
    if (millis < 1 || millis > 3_600_000) {
      throw new IllegalArgumentException("an incident's length must be within 1..3600000 ms, but was " + millis);
    }
    if (retryAfterSeconds < 0) {
      throw new IllegalArgumentException("an incident's Retry-After must be 0 or more, but was " + retryAfterSeconds);
    }
    window = new Window(System.nanoTime() + millis * 1_000_000, status, retryAfterSeconds);
  }

  /** The status to answer now, or 0 when there is no incident; counted when not 0. */
  int status() {
    Window w = window;
    if (w.status() == 0 || System.nanoTime() - w.untilNanos() >= 0) {
      return 0;
    }
    answered.incrementAndGet();
    return w.status();
  }

  /** The Retry-After of the incident now (0: none). */
  long retryAfterSeconds() {
    return window.retryAfterSeconds();
  }

  /** Requests answered by an incident so far. */
  long answered() {
    return answered.get();
  }
}
