package io.pixquota.bench;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The faults of {@code bench endurance}, one at a time, each one that {@code docs/reliability.md}'s fault table bounds:
 * Redis paused 3 s (SIGSTOP), replica 2 killed ({@code kill -9}) and started again 5 s later, Redis restarted empty,
 * and a rolling change of API Pix's refill (the last replica restarted with a lower rate, then with the first again,
 * beside replicas that keep theirs), and a provider incident (503s, then the provider's own 429s with Retry-After:
 * the mock's, not its quota's). Replica 1 and 3 run from start to end: their series show a slow leak. Each fault is
 * kept with when it began and ended, and how many of the quota's 429s its documented bound allows.
 */
final class EnduranceFaults {
  /** The kinds, in the order the schedule cycles through them. */
  enum Kind {
    REDIS_PAUSE("Redis paused 3 s", 0),
    REPLICA_KILL("replica 2 killed, started 5 s later", 0),
    REDIS_RESTART("Redis restarted empty", 8),
    RATE_LOWER("the last replica restarted with refill 7/s", 0),
    PROVIDER_INCIDENT("the provider answering 503 for 5 s, then its own 429 with Retry-After 1 s for 3 s", 0),
    RATE_HIGHER("the last replica restarted with refill 9/s", 0);

    final String label;
    /** The quota's 429s the documented bound allows: a restart without persistence admits one extra burst B (8). */
    final int pix429Allowed;

    Kind(String label, int pix429Allowed) {
      this.label = label;
      this.pix429Allowed = pix429Allowed;
    }
  }

  /** One fault that ran, from {@code startMs} to {@code endMs} into the run. */
  record Fault(Kind kind, long startMs, long endMs) {
    /** Its effects may last this long after it ends: waits booked before it run out within the max wait (5 s). */
    static final long SETTLE_MS = 10_000;

    boolean covers(long atMs) {
      return atMs >= startMs && atMs <= endMs + SETTLE_MS;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%s at %.0f-%.0f s", kind.label, startMs / 1e3, endMs / 1e3);
    }
  }

  static final double RATE = 9;
  static final double LOWER_RATE = 7;

  private final PrivateRedisServer redis;
  private final MockBacen provider;
  private final EnduranceFleet fleet;
  private final int replicas;
  private final List<Fault> done = new ArrayList<>();

  EnduranceFaults(PrivateRedisServer redis, MockBacen provider, EnduranceFleet fleet, int replicas) {
    this.redis = redis;
    this.provider = provider;
    this.fleet = fleet;
    this.replicas = replicas;
  }

  /** Runs fault {@code index} of the cycle; {@code nowMs} tells the time into the run. */
  void run(int index, java.util.function.LongSupplier nowMs) throws Exception {
    Kind kind = Kind.values()[index % Kind.values().length];
    long start = nowMs.getAsLong();
    switch (kind) {
      case REDIS_PAUSE -> {
        redis.pause();
        try {
          Thread.sleep(3_000);
        } finally {
          redis.resume();
        }
      }
      case REPLICA_KILL -> {
        int victim = Math.min(2, replicas);
        fleet.kill(victim);
        Thread.sleep(5_000);
        fleet.start(victim, fleet.rate(victim));
      }
      case REDIS_RESTART -> redis.restart();
      case PROVIDER_INCIDENT -> {
        provider.incident(503, 5_000, 0);
        Thread.sleep(5_000);
        provider.incident(429, 3_000, 1);
        Thread.sleep(3_000);
      }
      case RATE_LOWER, RATE_HIGHER -> fleet.restart(replicas, kind == Kind.RATE_LOWER ? LOWER_RATE : RATE);
    }
    synchronized (done) {
      done.add(new Fault(kind, start, nowMs.getAsLong()));
    }
  }

  List<Fault> done() {
    synchronized (done) {
      return List.copyOf(done);
    }
  }

  /** The fault whose window covers {@code atMs}, or null. */
  Fault at(long atMs) {
    for (Fault f : done()) {
      if (f.covers(atMs)) {
        return f;
      }
    }
    return null;
  }
}
