package io.pixquota.bench;

import io.pixquota.harness.ForeignConsumer;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The faults of {@code bench endurance}, one at a time, each one that {@code docs/reliability.md}'s fault table bounds:
 * Redis paused 3 s (SIGSTOP); replica 2 killed ({@code kill -9}) and started again 5 s later; Redis restarted empty; a
 * rolling change of API Pix's refill (the last replica restarted with a lower rate, then with the first again, beside
 * replicas that keep theirs); a provider incident (503s, then the provider's own 429s with Retry-After: the mock's,
 * not its quota's); a foreign system spending part of the quota on the same credentials (the fleet's rate adaptation
 * finds it from the 429s it meets); DICT moving the participant to a smaller category and back (each replica reads
 * DICT's policies again after the first 429 on the participant's bucket). Replicas 1 and 3 run from start to end:
 * their series show a slow leak. Each fault is kept with when it began and ended.
 */
final class EnduranceFaults {
  /** The kinds, in the order the schedule cycles through them. */
  enum Kind {
    REDIS_PAUSE("Redis paused 3 s", 0),
    REPLICA_KILL("replica 2 killed, started 5 s later", 0),
    REDIS_RESTART("Redis restarted empty", 8),
    RATE_LOWER("the last replica restarted with refill 7/s", 0),
    PROVIDER_INCIDENT("the provider answering 503 for 5 s, then its own 429 with Retry-After 1 s for 3 s", 0),
    RATE_HIGHER("the last replica restarted with refill 9/s", 0),
    FOREIGN("a foreign system on the same credentials, not throttled, at 3/s", 3),
    DICT_RESIZE("DICT moving the participant from category E to F, and back", 0);

    final String label;
    /**
     * The quota's 429s the documented bound allows: a restart without persistence admits one extra burst B (8); a
     * foreign consumer, the 429s that teach the fleet's rate adaptation it is there (3), plus 1% of our calls the
     * provider accepted while it ran ({@link #pix429Allowed(long)}).
     */
    private final int pix429Allowed;

    Kind(String label, int pix429Allowed) {
      this.label = label;
      this.pix429Allowed = pix429Allowed;
    }

    /** Our 429s this fault's bound allows, {@code ourAccepted} of our calls accepted while it ran and settled. */
    long pix429Allowed(long ourAccepted) {
      return pix429Allowed + (this == FOREIGN ? (ourAccepted + 99) / 100 : 0);
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
  static final double FOREIGN_RATE = 3;
  /**
   * The foreign system's calls last 60 s, and DICT keeps the participant in category F as long, or half the time
   * between faults in a short run.
   */
  static final int FOREIGN_SECONDS = 60;

  private final PrivateRedisServer redis;
  private final MockBacen provider;
  private final EnduranceFleet fleet;
  private final int replicas;
  private final int longSeconds;
  private final List<Fault> done = new ArrayList<>();
  private volatile Fault running;
  private final List<String> failures = new java.util.concurrent.CopyOnWriteArrayList<>();

  EnduranceFaults(PrivateRedisServer redis, MockBacen provider, EnduranceFleet fleet, int replicas, long everyMs) {
    this.longSeconds = (int) Math.max(1, Math.min(FOREIGN_SECONDS, everyMs / 2_000));
    this.redis = redis;
    this.provider = provider;
    this.fleet = fleet;
    this.replicas = replicas;
  }

  /** Runs fault {@code index} of the cycle; {@code nowMs} tells the time into the run. */
  void run(int index, java.util.function.LongSupplier nowMs) throws Exception {
    Kind kind = Kind.values()[index % Kind.values().length];
    long start = nowMs.getAsLong();
    running = new Fault(kind, start, Long.MAX_VALUE - Fault.SETTLE_MS);
    try {
      inject(kind);
    } catch (Exception e) {
      failures.add(kind.label + " at " + start / 1000 + " s: " + e);
      throw e;
    } finally {
      synchronized (done) {
        done.add(new Fault(kind, start, nowMs.getAsLong()));
        running = null;
      }
    }
  }

  /** What did not run as scheduled: a fault that failed, and why. */
  List<String> failures() {
    return List.copyOf(failures);
  }

  private void inject(Kind kind) throws Exception {
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
      case FOREIGN -> ForeignConsumer.paced(provider.url(), FOREIGN_RATE, System.currentTimeMillis(),
          longSeconds).join();
      case DICT_RESIZE -> {
        provider.dictCategory('F'); // 250 at 25 a minute: the fleet's mirror refills at E's 500 until it reads again
        Thread.sleep(longSeconds * 1000L);
        provider.dictCategory('E');
      }
    }
  }

  List<Fault> done() {
    synchronized (done) {
      return List.copyOf(done);
    }
  }

  /** The fault whose window covers {@code atMs} (one still running included: a sample taken while it runs), or null. */
  Fault at(long atMs) {
    for (Fault f : done()) {
      if (f.covers(atMs)) {
        return f;
      }
    }
    Fault now = running;
    return now != null && now.covers(atMs) ? now : null;
  }
}
