package io.pixquota.throttle.plan;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.StepHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fleet on one virtual clock (nanoseconds), closed loop: replicas whose callers book slots in one shared bucket
 * (the script's step in Java, {@link BucketStep}, over one state, each replica with its own configuration), sleep
 * until their slot, book again when the rate that booked it was cut, send, and tell the bucket of a 429; other
 * systems on the same credentials call the provider straight; the provider is a token bucket that answers 429 with
 * a Retry-After. Callers call back to back from their replica's start to its stop (a rolling deploy is replicas
 * with other configurations starting and stopping).
 */
final class FleetSimulation {
  static final long S = 1_000_000_000L;

  /**
   * A replica: its limit, when its callers start and stop, how many, whether it adapts its rate, and how far ahead its
   * callers may book (a priority class's horizon; negative: as far as they like, the interactive class). A caller
   * that finds no slot within its horizon asks again when the bucket said one would be free, holding nothing.
   */
  record Replica(Limit limit, long startNanos, long stopNanos, int callers, boolean adapt, long horizonNanos,
      long brokenRetryAfterNanos, boolean brokenSignalled) {
    Replica(Limit limit, long startNanos, long stopNanos, int callers, boolean adapt) {
      this(limit, startNanos, stopNanos, callers, adapt, -1, -1, true);
    }

    Replica(Limit limit, long startNanos, long stopNanos, int callers, boolean adapt, long horizonNanos) {
      this(limit, startNanos, stopNanos, callers, adapt, horizonNanos, -1, true);
    }

    /** This replica with a gateway in front of it that answers every call 429 with a Retry-After of a day. */
    Replica broken() {
      return broken(86_400 * S, true);
    }

    /**
     * This replica with something in front of it that answers every call 429 with this Retry-After (0: none);
     * {@code signalled}: its 429s carry the provider's quota signal, so its throttle tells the bucket (without a
     * signal configured, every 429 does); else the throttle's quota signal sets them aside, as the SDK's defaults do.
     */
    Replica broken(long retryAfterNanos, boolean signalled) {
      return new Replica(limit, startNanos, stopNanos, callers, adapt, horizonNanos, retryAfterNanos, signalled);
    }

    boolean behindBrokenGateway() {
      return brokenRetryAfterNanos >= 0;
    }
  }

  /** Another system on the same credentials: a rate, each call within +-jitter of its time. */
  record Foreign(double perSecond, long startNanos, long stopNanos, long jitterNanos) {}

  /**
   * @param retryAfterSeconds a fixed Retry-After, or 0: until the provider's bucket has a token, rounded up
   * @param networkNanos      one-way delay, each call within [network, network + jitter]
   */
  record Setup(double providerCapacity, double providerRate, long retryAfterSeconds, long networkNanos,
      long jitterNanos, List<Replica> replicas, List<Foreign> foreign, long leaseNanos) {}

  /** A call of one of our replicas (replica >= 0) or of a foreign system (-1), at the provider. */
  record Arrival(long atNanos, int replica, boolean accepted) {}

  /** A slot booked: when the bucket decided, the slot, by which replica. */
  record Booking(long decidedNanos, long slotNanos, int replica) {}

  /**
   * A 429 answered to one of ours: when its response came back, the Retry-After it carried, and whether the bucket
   * counted it (not when its replica made the last cut and others asked since).
   */
  record Refusal(long respondedNanos, long retryAfterNanos, boolean counted) {}

  /**
   * What happened. Sends are our calls leaving (at their slot), in time order; cutAt the times the fleet's rate was
   * cut.
   */
  record Outcome(List<Arrival> arrivals, List<Booking> bookings, List<Long> sends, List<Refusal> refusals,
      double minFactor, double maxFactor, int cuts, List<Long> cutAt) {}

  private enum Kind { BOOK, WAKE, ARRIVE, RESPOND, FOREIGN }

  private record Event(long at, long seq, Kind kind, int caller) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
    }
  }

  private FleetSimulation() {}

  static Outcome run(Setup s, long seed) {
    Random random = new Random(seed);
    AtomicLong clock = new AtomicLong();
    StepHash shared = new StepHash();
    List<LocalTokenBucket> buckets = new ArrayList<>();
    // The buckets' clock runs a second ahead of the simulation's: a state created at time 0 stamps its first rate
    // generation 0, which a bucket reads as "no generation" (so a cut never voided the bookings made before the
    // first cut, seed -10272531). A store's clock is never at 0 (Redis's TIME, the caller's nanoTime).
    for (Replica r : s.replicas()) {
      buckets.add(new LocalTokenBucket("sim", List.of(r.limit()), () -> clock.get() + S, shared,
          Duration.ofNanos(s.leaseNanos()), r.adapt() ? RateAdaptation.defaults() : null));
    }
    List<int[]> callers = new ArrayList<>(); // {replica}
    PriorityQueue<Event> queue = new PriorityQueue<>();
    long[] seq = {0};
    for (int i = 0; i < s.replicas().size(); i++) {
      for (int c = 0; c < s.replicas().get(i).callers(); c++) {
        callers.add(new int[] {i});
        queue.add(new Event(s.replicas().get(i).startNanos(), seq[0]++, Kind.BOOK, callers.size() - 1));
      }
    }
    for (Foreign f : s.foreign()) {
      long period = (long) (S / f.perSecond());
      for (long t = f.startNanos(); t < f.stopNanos(); t += period) {
        long at = Math.max(0, t + (f.jitterNanos() == 0 ? 0
            : (long) ((random.nextDouble() * 2 - 1) * f.jitterNanos())));
        queue.add(new Event(at, seq[0]++, Kind.FOREIGN, -1));
      }
    }
    Acquisition[] booked = new Acquisition[callers.size()];
    boolean[] refusedCall = new boolean[callers.size()];
    long[] retryAfter = new long[callers.size()];
    double providerTokens = s.providerCapacity();
    long providerLast = 0;
    List<Arrival> arrivals = new ArrayList<>();
    List<Booking> bookings = new ArrayList<>();
    List<Long> sends = new ArrayList<>();
    List<Refusal> refusals = new ArrayList<>();
    double minFactor = 1;
    double maxFactor = 0;
    int cuts = 0;
    List<Long> cutAt = new ArrayList<>();
    while (!queue.isEmpty()) {
      Event e = queue.poll();
      clock.set(Math.max(clock.get(), e.at()));
      long now = clock.get();
      if (e.kind() == Kind.ARRIVE && s.replicas().get(callers.get(e.caller())[0]).behindBrokenGateway()) {
        refusedCall[e.caller()] = true; // the gateway answers, the provider never sees it
        retryAfter[e.caller()] = s.replicas().get(callers.get(e.caller())[0]).brokenRetryAfterNanos();
        queue.add(new Event(now + s.networkNanos(), seq[0]++, Kind.RESPOND, e.caller()));
        continue;
      }
      if (e.kind() == Kind.FOREIGN || e.kind() == Kind.ARRIVE) {
        providerTokens = Math.min(s.providerCapacity(), providerTokens + s.providerRate() * (now - providerLast) / S);
        providerLast = now;
        boolean ok = providerTokens >= 1 - 1e-9;
        if (ok) {
          providerTokens -= 1;
        }
        arrivals.add(new Arrival(now, e.kind() == Kind.FOREIGN ? -1 : callers.get(e.caller())[0], ok));
        if (e.kind() == Kind.ARRIVE) {
          refusedCall[e.caller()] = !ok;
          long ra = s.retryAfterSeconds() > 0 ? s.retryAfterSeconds()
              : (long) Math.ceil((1 - providerTokens) / s.providerRate());
          retryAfter[e.caller()] = ok ? 0 : ra * S;
          queue.add(new Event(now + s.networkNanos(), seq[0]++, Kind.RESPOND, e.caller()));
        }
        continue;
      }
      int replica = callers.get(e.caller())[0];
      LocalTokenBucket bucket = buckets.get(replica);
      Replica r = s.replicas().get(replica);
      switch (e.kind()) {
        case BOOK -> {
          if (now >= r.stopNanos()) {
            continue;
          }
          Acquisition a = bucket.acquire(1, r.horizonNanos() < 0 ? Duration.ofDays(1)
              : Duration.ofNanos(r.horizonNanos()));
          if (!a.granted()) { // beyond its class's horizon: ask again then, holding nothing
            queue.add(new Event(now + a.waitTime().toNanos(), seq[0]++, Kind.BOOK, e.caller()));
            continue;
          }
          booked[e.caller()] = a;
          long slot = now + a.waitTime().toNanos();
          bookings.add(new Booking(now, slot, replica));
          queue.add(new Event(slot, seq[0]++, Kind.WAKE, e.caller()));
        }
        case WAKE -> {
          if (bucket.validity(booked[e.caller()]) == TokenBucket.Validity.RATE_CUT) {
            Acquisition moved = bucket.retimed(booked[e.caller()]); // its slot at the new rate, or book again
            if (moved == null) {
              queue.add(new Event(now, seq[0]++, Kind.BOOK, e.caller()));
            } else {
              long later = (moved.slotMicros() - booked[e.caller()].slotMicros()) * 1000;
              booked[e.caller()] = moved;
              queue.add(new Event(now + later, seq[0]++, Kind.WAKE, e.caller()));
            }
            continue;
          }
          sends.add(now);
          long network = s.networkNanos() + (long) (random.nextDouble() * s.jitterNanos());
          queue.add(new Event(now + network, seq[0]++, Kind.ARRIVE, e.caller()));
        }
        case RESPOND -> {
          if (refusedCall[e.caller()] && (!r.behindBrokenGateway() || r.brokenSignalled())) {
            TokenBucket.Refusal outcome = bucket.providerRefused(booked[e.caller()],
                Duration.ofNanos(retryAfter[e.caller()]));
            if (outcome == TokenBucket.Refusal.CUT) {
              cuts++;
              cutAt.add(now);
            }
            refusals.add(new Refusal(now, retryAfter[e.caller()], outcome != TokenBucket.Refusal.NOT_COUNTED));
          }
          queue.add(new Event(now, seq[0]++, Kind.BOOK, e.caller()));
        }
        default -> throw new IllegalStateException(e.kind().name());
      }
      minFactor = Math.min(minFactor, bucket.readings().rateFactor());
      maxFactor = Math.max(maxFactor, bucket.readings().rateFactor());
    }
    sends.sort(null);
    return new Outcome(arrivals, bookings, sends, refusals, minFactor, maxFactor, cuts, cutAt);
  }
}
