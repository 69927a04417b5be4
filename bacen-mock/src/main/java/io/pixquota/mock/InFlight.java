package io.pixquota.mock;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The judge's count of requests in flight per integrator, from their arrival until their answer starts to leave: with
 * a cap (BACEN's SPI takes 6 at once), the request that would be one more than it is refused at once; the most seen
 * at once is kept for the audit. Threadsafe.
 */
final class InFlight {
  private final int cap; // 0: no cap, only counted
  private final Map<String, int[]> byIntegrator = new ConcurrentHashMap<>(); // {now, most, refused}

  InFlight(int cap) {
    this.cap = cap;
  }

  /** A request arrives: false when it would be one more than the cap (it is refused, and not counted in flight). */
  boolean enter(String integrator) {
    int[] c = byIntegrator.computeIfAbsent(integrator, k -> new int[3]);
    synchronized (c) {
      if (cap > 0 && c[0] >= cap) {
        c[2]++;
        return false;
      }
      c[0]++;
      c[1] = Math.max(c[1], c[0]);
      return true;
    }
  }

  /**
   * What ends an admitted request's flight, once: run it as its answer starts to leave (the client can read the
   * answer from then on, and a client's cap can only follow answers), or when it ends without one.
   */
  Runnable leaving(String integrator) {
    AtomicBoolean done = new AtomicBoolean();
    return () -> {
      if (done.compareAndSet(false, true)) {
        exit(integrator);
      }
    };
  }

  /** Its answer leaves. */
  void exit(String integrator) {
    int[] c = byIntegrator.get(integrator);
    synchronized (c) {
      c[0]--;
    }
  }

  int cap() {
    return cap;
  }

  /** {@code max} (the cap, 0: none), {@code mostSeen}, {@code refused}, {@code now}. */
  Map<String, Object> stats(String integrator) {
    int[] c = byIntegrator.computeIfAbsent(integrator, k -> new int[3]);
    Map<String, Object> out = new LinkedHashMap<>();
    synchronized (c) {
      out.put("max", cap);
      out.put("mostSeen", c[1]);
      out.put("refused", c[2]);
      out.put("now", c[0]);
    }
    return out;
  }

  void reset() {
    byIntegrator.values().forEach(c -> {
      synchronized (c) {
        c[1] = c[0];
        c[2] = 0;
      }
    });
  }
}
