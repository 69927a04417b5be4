package io.pixquota.throttle.redis;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.PermitPool.Permit;
import io.pixquota.throttle.store.PermitPool.PermitAnswer;
import io.pixquota.throttle.store.PermitPool.Readings;
import io.pixquota.throttle.store.PermitPool.Waiter;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link RedisPermitPool}'s replies read ({@code permit_pool.lua} says their forms), and what they said last: the
 * permits in use, the capacity in force, the leases the script reclaimed. Threadsafe.
 */
final class PoolReplies {
  private final String name;
  private final Duration lease;
  private final RedisTokenBucket beside; // null: alone
  private final PermitTurns turns;
  private volatile int inUse;
  private volatile int capacityInForce;
  private final AtomicLong expiredLeases = new AtomicLong();

  PoolReplies(String name, int capacity, Duration lease, RedisTokenBucket beside, PermitTurns turns) {
    this.name = name;
    this.capacityInForce = capacity;
    this.lease = lease;
    this.beside = beside;
    this.turns = turns;
  }

  Readings readings() {
    return new Readings(inUse, expiredLeases.get(), capacityInForce);
  }

  /**
   * Reads a release's or a leave's reply, {@code <held> <expired> <inUse> <cap>}, into the readings.
   *
   * @return its first word ("1" when the permit was held)
   */
  String counts(String text) {
    String[] v = text == null ? new String[0] : text.split(" ");
    if (v.length == 4) {
      try {
        expired(Integer.parseInt(v[1]));
        inUse = Integer.parseInt(v[2]);
        capacityInForce = Integer.parseInt(v[3]);
      } catch (NumberFormatException e) {
        return v[0]; // a reply of another version: its first word is all this process needs
      }
    }
    return v.length > 0 ? v[0] : "";
  }

  /** Reads a take's reply; null when it is none of the script's forms. */
  PermitAnswer read(Waiter waiter, boolean withSlot, String text, long at) throws StoreUnavailableException {
    String pool = text;
    String bucket = null;
    int bar = text == null ? -1 : text.indexOf(" |");
    if (bar >= 0) {
      pool = text.substring(0, bar);
      bucket = text.substring(bar + 2);
    }
    String[] v = pool == null ? new String[0] : pool.split(" ");
    switch (v.length > 0 ? v[0] : "") {
      case "Q" -> {
        inUse = Integer.parseInt(v[2]);
        int expired = expired(Integer.parseInt(v[3]));
        long untilMs = Long.parseLong(v[4]);
        capacityInForce = Integer.parseInt(v[5]);
        turns.firstLeaseEnds(untilMs < 0 ? null : at + untilMs * 1_000_000);
        return new PermitAnswer(null, Integer.parseInt(v[1]), null, inUse, expired, at);
      }
      case "R" -> {
        inUse = Integer.parseInt(v[2]);
        int expired = expired(Integer.parseInt(v[3]));
        capacityInForce = Integer.parseInt(v[5]);
        return PermitAnswer.refused(Integer.parseInt(v[1]), Duration.ofMillis(Math.max(0, Long.parseLong(v[4]))),
            inUse, expired, at);
      }
      case "P" -> {
        inUse = Integer.parseInt(v[1]);
        capacityInForce = Integer.parseInt(v[4]);
        Acquisition a = bucket == null ? null : beside.acquisition(bucket, at);
        return new PermitAnswer(new Permit(name, waiter.id(), at + lease.toNanos()), 0, a, inUse,
            expired(Integer.parseInt(v[2])), at);
      }
      case "N" -> {
        inUse = Integer.parseInt(v[1]);
        capacityInForce = Integer.parseInt(v[3]);
        if (!withSlot || bucket == null) {
          break;
        }
        return new PermitAnswer(null, 0, beside.acquisition(bucket, at), inUse, expired(Integer.parseInt(v[2])),
            at);
      }
      default -> { }
    }
    return null;
  }

  private int expired(int n) {
    expiredLeases.addAndGet(n);
    return n;
  }
}
