package io.pixquota.throttle.store;

import io.pixquota.throttle.support.Checks;
import io.pixquota.throttle.support.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/**
 * A {@link PermitPool} in memory, for one process and for tests: the same rules as the Redis pool (leases, permit ids
 * never given twice, a line by class, then deadline, then arrival, waiters that stop asking lose their place after the
 * waiter lease),
 * on the throttle's clock. With a {@link LocalTokenBucket} it decides the slot and the permit together, under one
 * lock; any other bucket is left to the caller. Threadsafe.
 */
public final class LocalPermitPool implements PermitPool {
  /** How long a waiter keeps its place in line without asking again. */
  static final Duration WAITER_LEASE = Duration.ofSeconds(3);

  private final String name;
  private final int capacity;
  private final Duration lease;
  private final TimeSource time;
  private final Map<String, Long> held = new HashMap<>(); // permit id (its waiter's) -> lease end (nanos)
  private final Map<String, Long> takenAt = new HashMap<>(); // permit id -> when it was taken (nanos)
  private Long shortestHold; // nanos, a decaying minimum of the holds given back; null: none yet
  private final TreeMap<Place, String> line = new TreeMap<>(); // place -> waiter
  private final Map<String, Place> waiters = new HashMap<>(); // waiter -> its place in line
  private final Map<String, Long> waiterLeases = new HashMap<>(); // waiter -> when it loses its place (nanos)
  private final Map<String, CompletableFuture<Void>> turns = new HashMap<>();
  private long next;
  private int lastInUse;
  private long expiredLeases;

  /** A pool of {@code capacity} permits leased for {@code lease}, on the system clock. */
  public LocalPermitPool(String name, int capacity, Duration lease) {
    this(name, capacity, lease, TimeSource.SYSTEM);
  }

  /** A pool on a clock the caller owns (a test's). */
  public LocalPermitPool(String name, int capacity, Duration lease, TimeSource time) {
    this.name = Checks.poolName(name);
    this.capacity = Checks.poolCapacity(capacity);
    this.lease = Checks.positiveAtMostADay("lease", lease);
    this.time = Objects.requireNonNull(time, "time cannot be null");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  @Override
  public Duration lease() {
    return lease;
  }

  @Override
  public PermitAnswer take(Waiter waiter, SlotAsk slot) throws StoreUnavailableException, InterruptedException {
    List<CompletableFuture<Void>> wake = new ArrayList<>();
    PermitAnswer answer;
    synchronized (this) {
      long now = time.nanoTime();
      int expired = reclaim(now, wake);
      Place place = waiters.computeIfAbsent(waiter.id(), id -> {
        Place p = new Place(waiter.rank(), now + waiter.maxWait().toNanos(), ++next);
        line.put(p, id);
        return p;
      });
      waiterLeases.put(waiter.id(), now + WAITER_LEASE.toNanos());
      int ahead = line.headMap(place).size() - (capacity - held.size()) + 1;
      if (ahead > 0) {
        lastInUse = held.size();
        Long back = firstBack();
        if (back != null && back - place.deadline() > 0) { // even first in line, nothing comes back in time
          drop(waiter.id(), wake);
          return PermitAnswer.refused(ahead, Duration.ofNanos(Math.max(0, back - now)), held.size(), expired, now);
        }
        return new PermitAnswer(null, ahead, null, held.size(), expired, now);
      }
      Acquisition a = null;
      if (slot != null && slot.bucket() instanceof LocalTokenBucket) {
        a = slot.bucket().acquire(slot.cost(), slot.maxWait());
      }
      drop(waiter.id(), wake); // booked or refused, it leaves the line: a refused call asks again from its end
      if (a != null && !a.granted()) {
        answer = new PermitAnswer(null, 0, a, held.size(), expired, now); // both or neither: no permit
        heads(wake);
      } else {
        held.put(waiter.id(), now + lease.toNanos());
        takenAt.put(waiter.id(), now);
        answer = new PermitAnswer(new Permit(name, waiter.id(), now + lease.toNanos()), 0, a, held.size(), expired,
            now);
      }
      lastInUse = held.size();
    }
    wake.forEach(f -> f.complete(null));
    return answer;
  }

  @Override
  public CompletionStage<Boolean> release(Permit permit) {
    Objects.requireNonNull(permit, "permit cannot be null");
    List<CompletableFuture<Void>> wake = new ArrayList<>();
    boolean held;
    synchronized (this) {
      long now = time.nanoTime();
      reclaim(now, wake);
      held = this.held.remove(permit.id()) != null;
      Long since = takenAt.remove(permit.id());
      if (held && since != null) {
        long hold = now - since;
        shortestHold = shortestHold == null || hold < shortestHold ? hold : shortestHold + (hold - shortestHold) / 10;
      }
      heads(wake);
      lastInUse = this.held.size();
    }
    wake.forEach(f -> f.complete(null));
    return CompletableFuture.completedFuture(held);
  }

  @Override
  public void leave(Waiter waiter) {
    List<CompletableFuture<Void>> wake = new ArrayList<>();
    synchronized (this) {
      drop(waiter.id(), wake);
      held.remove(waiter.id());
      takenAt.remove(waiter.id());
      heads(wake);
    }
    wake.forEach(f -> f.complete(null));
  }

  @Override
  public CompletionStage<Void> turn(Waiter waiter, Duration atMost) {
    CompletableFuture<Void> turn;
    synchronized (this) {
      turn = turns.computeIfAbsent(waiter.id(), id -> new CompletableFuture<>());
      Long earliest = held.values().stream().min(Long::compare).orElse(null);
      // within half its waiter lease, so that it asks again (and keeps its place) however long its max wait
      long until = time.nanoTime() + Math.min(atMost.toNanos(), WAITER_LEASE.toNanos() / 2);
      if (earliest != null && earliest < until) {
        until = earliest + 1; // a lease ends first: the line moves then
      }
      Future<?> timer = time.schedule(() -> turn.complete(null), until);
      turn.whenComplete((v, e) -> timer.cancel(false));
    }
    turn.whenComplete((v, e) -> {
      synchronized (this) {
        turns.remove(waiter.id(), turn);
      }
    });
    return turn;
  }

  @Override
  public synchronized Readings readings() {
    return new Readings(lastInUse, expiredLeases, capacity); // one process: its capacity is the pool's
  }

  /** How many callers wait in the line now. */
  public synchronized int inLine() {
    return line.size();
  }

  /** Ends leases and waiter leases that are over; the waiters first in line then may take: wake them. */
  private int reclaim(long now, List<CompletableFuture<Void>> wake) {
    int expired = 0;
    for (Iterator<Map.Entry<String, Long>> it = held.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Long> permit = it.next();
      if (permit.getValue() - now <= 0) {
        it.remove();
        takenAt.remove(permit.getKey());
        expired++;
      }
    }
    expiredLeases += expired;
    List<String> gone = new ArrayList<>();
    waiterLeases.forEach((id, until) -> {
      if (until - now <= 0) {
        gone.add(id);
      }
    });
    gone.forEach(id -> drop(id, wake));
    if (expired > 0 || !gone.isEmpty()) {
      heads(wake);
    }
    return expired;
  }

  private void drop(String waiter, List<CompletableFuture<Void>> wake) {
    Place place = waiters.remove(waiter);
    waiterLeases.remove(waiter);
    if (place != null) {
      line.remove(place);
    }
  }

  /** When the earliest-taken permit held is expected back (its take plus the shortest hold lately), or null. */
  private Long firstBack() {
    if (shortestHold == null || takenAt.isEmpty()) {
      return null;
    }
    long earliest = takenAt.values().stream().reduce((a, b) -> a - b <= 0 ? a : b).orElseThrow();
    return earliest + shortestHold;
  }

  /** The waiters whose turn it is now (as many as permits are free): their turn futures complete. */
  private void heads(List<CompletableFuture<Void>> wake) {
    int free = capacity - held.size();
    for (String id : line.values()) {
      if (free-- <= 0) {
        break;
      }
      CompletableFuture<Void> f = turns.get(id);
      if (f != null) {
        wake.add(f);
      }
    }
  }

  /** A place in line: class first, then the earliest deadline (nanos), then arrival. */
  private record Place(int rank, long deadline, long ticket) implements Comparable<Place> {
    @Override
    public int compareTo(Place o) {
      int byRank = Integer.compare(rank, o.rank);
      if (byRank != 0) {
        return byRank;
      }
      long byDeadline = deadline - o.deadline; // nanoTime values: compared by difference
      return byDeadline != 0 ? Long.signum(byDeadline) : Long.compare(ticket, o.ticket);
    }
  }

  @Override
  public String toString() {
    return "LocalPermitPool{" + name + ", " + capacity + " in flight, lease " + lease + "}";
  }
}
