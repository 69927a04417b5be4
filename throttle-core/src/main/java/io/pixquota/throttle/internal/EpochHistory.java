package io.pixquota.throttle.internal;

import java.util.ArrayDeque;

/**
 * The states of one bucket this process has heard of, by epoch (when Redis created the state). The newest is current;
 * an epoch that was replaced is dead: its state expired when full again (nobody can still hold a slot of it), or it
 * was lost (a restart without persistence, a failover, a deleted key) with slots still booked in it. Replies may
 * arrive out of order across threads; a late reply from a dead epoch does not bring it back. Threadsafe.
 */
public final class EpochHistory {
  /** Dead epochs remembered: far more than states a bucket goes through within one max wait. */
  private static final int REMEMBERED = 32;

  private volatile long current; // written under the lock; read without it by the common case of observe
  private final ArrayDeque<Long> dead = new ArrayDeque<>();

  /** Notes the epoch of a reply; 0 means none. The common case, the current epoch again, takes no lock. */
  public void observe(long epoch) {
    if (epoch != current) {
      change(epoch);
    }
  }

  private synchronized void change(long epoch) {
    if (epoch == 0 || epoch == current || dead.contains(epoch)) {
      return;
    }
    if (current != 0) {
      dead.addFirst(current);
      if (dead.size() > REMEMBERED) {
        dead.removeLast();
      }
    }
    current = epoch;
  }

  /**
   * Notes a value of a series that only grows (a state's rate generations: each cut starts one above the last): one
   * below the newest is older, and dead, whatever the order replies arrive in across threads. (Two reports of a 429
   * answered on two threads once made the newer generation dead and the older current: every slot of the newer one
   * was void, booked again, and void again.)
   */
  public synchronized void observeNewer(long value) {
    if (value == 0 || value == current || dead.contains(value)) {
      return;
    }
    if (value > current) {
      change(value);
    } else {
      dead.addFirst(value);
      if (dead.size() > REMEMBERED) {
        dead.removeLast();
      }
    }
  }

  /** Starts over at {@code value}: a new state, whose generations are its own. */
  public synchronized void reset(long value) {
    dead.clear();
    current = value;
  }

  /** The newest epoch heard of; 0 before any. */
  public long current() {
    return current;
  }

  /** Whether a newer state has answered since {@code epoch}'s. */
  public synchronized boolean isDead(long epoch) {
    return epoch != 0 && dead.contains(epoch);
  }
}
