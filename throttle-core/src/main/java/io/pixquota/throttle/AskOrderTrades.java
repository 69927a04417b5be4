package io.pixquota.throttle;

import io.pixquota.throttle.store.Acquisition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts the slots a process waits for in the order its calls were asked ({@link AskOrder}). Two callers that ask
 * within a fraction of a millisecond can reach the bucket in either order (a thread preempted between its ask and
 * its booking): when a booking's slot comes later than the slots of waiting calls of this process that asked after
 * it, it takes the earliest of theirs and each of them moves one slot on, the last taking its slot. The other way
 * round, a booking whose slot comes before waiting calls that asked before it (a slot's time here is when its reply
 * was read plus its wait, and replies are read late by different amounts) moves behind them. Only calls that
 * could swap without anyone noticing trade: the same bucket and flow, the same cost and class, no permit, each slot
 * still at least {@link #GUARD_NANOS} ahead. The bucket's slots stay the ones it booked, so the quota is untouched.
 * A call that woke late and booked again at the end of the line does not trade (more than {@link #MOST} would move):
 * the calls after it have left. Threadsafe: a trade holds its group's lock, then the bookings' monitors, and a
 * booking never asks for its group's lock while it holds its own monitor.
 */
final class AskOrderTrades {
  private static final long GUARD_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
  // the most later-asked calls one booking moves: 10,000 virtual threads ask 13 a millisecond on 2 cores, so a thread
  // held 2 ms between its ask and its booking has 26 booked before it; each of them moves one slot, under one lock
  private static final int MOST = 64;
  static final long SWEEP = 4096; // every this many bookings that wait, idle groups are forgotten

  private record Key(String bucket, String flow, double cost, Priority priority) {}

  private record Entry(long slotNanos, long seq, AsyncBooking booking) {}

  private static final Comparator<Entry> BY_SLOT = Comparator.comparingLong(Entry::slotNanos)
      .thenComparingLong(Entry::seq);

  private final Map<Key, NavigableSet<Entry>> groups = new ConcurrentHashMap<>();
  private final AtomicLong seq = new AtomicLong();
  private final AtomicLong waited = new AtomicLong();

  /**
   * {@code b} has just been booked and waits for its slot (called outside its monitor): trades with the waiting calls
   * just before its slot that asked after it (back to the first one that asked before it), then waits among them.
   */
  void booked(AsyncBooking b) {
    Booking booking = b.booking;
    long now = b.waits.time().nanoTime();
    long slot;
    synchronized (b) {
      if (b.state != AsyncBooking.State.WAITING || booking.pool != null) {
        return; // a permit's slot is the pool's
      }
      slot = booking.slotNanos();
    }
    if (slot - now < GUARD_NANOS) {
      return; // about to come: nothing to trade
    }
    if (waited.incrementAndGet() % SWEEP == 0) {
      forgetIdle(now);
    }
    Key key = new Key(booking.bucket.name(), booking.flow(), booking.cost, booking.priority);
    NavigableSet<Entry> group = groups.computeIfAbsent(key, k -> new TreeSet<>(BY_SLOT));
    synchronized (group) {
      purge(group, now);
      Entry mine = new Entry(slot, seq.incrementAndGet(), b);
      List<Entry> later = new ArrayList<>();
      for (Iterator<Entry> it = group.headSet(mine, false).descendingIterator(); it.hasNext()
          && later.size() <= MOST;) {
        Entry e = it.next();
        if (e.booking.booking.askOrder - booking.askOrder <= 0) {
          break; // asked before it: it stays ahead, and so does everything before it
        }
        later.add(0, e);
      }
      if (later.isEmpty()) {
        List<Entry> earlier = askedBefore(group, mine);
        if (!earlier.isEmpty() && earlier.size() <= MOST) {
          earlier.add(0, mine);
          trade(group, earlier, true, 0, now);
          return;
        }
      }
      if (later.isEmpty() || later.size() > MOST) {
        group.add(mine);
        return;
      }
      later.add(mine);
      trade(group, later, false, 0, now);
    }
  }

  /**
   * The waiting calls just after {@code mine}'s slot that asked before it (up to the first one asked after it): a
   * booking that got an earlier slot than calls asked before it (a slot given back by a cancel, or a reply that came
   * back sooner than theirs) moves behind them, each of them one slot earlier.
   */
  private static List<Entry> askedBefore(NavigableSet<Entry> group, Entry mine) {
    List<Entry> earlier = new ArrayList<>();
    for (Iterator<Entry> it = group.tailSet(mine, false).iterator(); it.hasNext() && earlier.size() <= MOST;) {
      Entry e = it.next();
      if (e.booking.booking.askOrder - mine.booking.booking.askOrder >= 0) {
        break; // asked after it: it stays behind, and so does everything after it
      }
      earlier.add(e);
    }
    return earlier;
  }

  /**
   * Takes the monitors of {@code calls} (in slot order) one by one, then moves their slots: the booking that just
   * came, the last of them, takes the first slot and each other one the next; or, {@code behind}, the booking that
   * just came, the first, takes the last slot and each other one the one before; calls no longer waiting on their
   * slot keep out.
   */
  private void trade(NavigableSet<Entry> group, List<Entry> calls, boolean behind, int i, long now) {
    if (i < calls.size()) {
      synchronized (calls.get(i).booking) {
        trade(group, calls, behind, i + 1, now);
      }
      return;
    }
    List<Entry> still = new ArrayList<>();
    for (Entry e : calls) {
      if (e.booking.state == AsyncBooking.State.WAITING && e.booking.booking.slotNanos() == e.slotNanos
          && e.slotNanos - now >= GUARD_NANOS) {
        still.add(e);
      }
    }
    Entry mine = calls.get(behind ? 0 : calls.size() - 1);
    if (still.size() < 2 || still.get(behind ? 0 : still.size() - 1) != mine) {
      if (still.contains(mine)) {
        group.add(mine);
      }
      return;
    }
    List<Acquisition> slots = new ArrayList<>();
    List<Long> times = new ArrayList<>();
    for (Entry e : still) {
      slots.add(e.booking.booking.granted());
      times.add(e.slotNanos);
      group.remove(e);
    }
    for (int k = 0; k < still.size(); k++) {
      int n = still.size();
      AsyncBooking owner = still.get(behind ? (k + 1) % n : k == 0 ? n - 1 : k - 1).booking;
      owner.booking.slotTraded(slots.get(k), times.get(k));
      owner.retimed();
      group.add(new Entry(times.get(k), seq.incrementAndGet(), owner));
    }
  }

  /** Drops the calls whose slots have come: they left, or book again, or trade no more. */
  private static void purge(NavigableSet<Entry> group, long now) {
    while (!group.isEmpty() && group.first().slotNanos - now < GUARD_NANOS) {
      group.pollFirst();
    }
  }

  /** Forgets the groups no call waits in any more (buckets come and go: a lookup's own bucket per user). */
  private void forgetIdle(long now) {
    groups.forEach((key, group) -> {
      synchronized (group) {
        purge(group, now);
        if (group.isEmpty()) {
          groups.remove(key, group); // a booking that found it just before waits untraded: nothing is lost
        }
      }
    });
  }

  /** How many groups (bucket, flow, cost, class) had calls waiting lately: for tests. */
  int groups() {
    return groups.size();
  }
}
