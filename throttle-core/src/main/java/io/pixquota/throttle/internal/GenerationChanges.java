package io.pixquota.throttle.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The changes of one bucket's rate generation this process has heard of (from the script's replies and the state it
 * read after a message on the bucket's channel), by the generation each started; the last 32. A slot booked under an
 * older generation moves through each change since, in order ({@link #moved}); a change this process did not hear of
 * leaves the slot where it is, and its call books again. Threadsafe.
 */
public final class GenerationChanges {
  /** Changes remembered: far more than cuts within one max wait. */
  private static final int REMEMBERED = 32;

  private final Map<Long, GenerationChange> byGeneration = new LinkedHashMap<>();

  /** Notes a change; null (none known) notes nothing. */
  public synchronized void observe(GenerationChange change) {
    if (change == null || byGeneration.containsKey(change.generation())) {
      return;
    }
    byGeneration.put(change.generation(), change);
    if (byGeneration.size() > REMEMBERED) {
      Long oldest = byGeneration.keySet().iterator().next();
      byGeneration.remove(oldest);
    }
  }

  /**
   * A slot booked under {@code booked} at {@code slotMicros}, moved through every change from {@code booked} to
   * {@code current}: the slot at the rate in force; -1 when a change on the way is unknown here, or the slot had come
   * by one of them (its call books again).
   */
  public synchronized long moved(long booked, long current, long slotMicros) {
    if (booked == current) {
      return -1; // no change to move it through
    }
    Deque<GenerationChange> path = new ArrayDeque<>();
    for (long g = current; g != booked; ) {
      GenerationChange change = byGeneration.get(g);
      if (change == null || path.size() >= REMEMBERED) {
        return -1;
      }
      path.push(change);
      g = change.previous();
    }
    long slot = slotMicros;
    for (GenerationChange change : path) {
      slot = change.moved(slot);
      if (slot < 0) {
        return -1;
      }
    }
    return slot;
  }
}
