package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Admitted work per time window, computed from granted slot times. */
public final class WindowAudit {
  public record Grant(long slotMicros, double cost) {}

  private final List<Grant> grants = new ArrayList<>();

  public synchronized void add(Acquisition a, double cost) {
    if (a.granted()) {
      grants.add(new Grant(a.slotMicros(), cost));
    }
  }

  public synchronized int size() {
    return grants.size();
  }

  /** The most work admitted in any closed interval [s, s + T] that starts at a slot. */
  public synchronized double maxInWindow(long windowMicros) {
    List<Grant> sorted = new ArrayList<>(grants);
    sorted.sort(Comparator.comparingLong(Grant::slotMicros));
    double best = 0;
    double sum = 0;
    int end = 0;
    for (int start = 0; start < sorted.size(); start++) {
      while (end < sorted.size() && sorted.get(end).slotMicros() <= sorted.get(start).slotMicros() + windowMicros) {
        sum += sorted.get(end).cost();
        end++;
      }
      best = Math.max(best, sum);
      sum -= sorted.get(start).cost();
    }
    return best;
  }
}
