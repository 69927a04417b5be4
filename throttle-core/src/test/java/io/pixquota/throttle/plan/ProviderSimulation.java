package io.pixquota.throttle.plan;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A simulated run, all in nanoseconds of one virtual clock: calls reach the client bucket (the SDK's own
 * reservation arithmetic, {@link LocalTokenBucket}, driven by the virtual clock), leave at their slot plus a
 * lateness, and reach the provider after a network delay; the provider's limiter (token bucket, sliding or fixed
 * window) accepts or answers 429.
 */
public final class ProviderSimulation {
  /** One call: when it reaches the client bucket, how late it leaves after its slot, its network delay. */
  record Call(long demandNanos, long latenessNanos, long networkNanos) {}

  /** The outcome: 429 count, and the slots the client bucket booked. */
  record Outcome(int tooManyRequests, int accepted, long[] slotNanos, long[] arrivalNanos) {}

  private ProviderSimulation() {}

  static Outcome run(QuotaPlan plan, ProviderPolicy provider, long providerPhaseNanos, List<Call> calls) {
    List<Call> byDemand = new ArrayList<>(calls);
    byDemand.sort((a, b) -> Long.compare(a.demandNanos(), b.demandNanos()));
    AtomicLong clock = new AtomicLong(0);
    LocalTokenBucket client = new LocalTokenBucket("sim",
        List.of(Limit.of(plan.capacity(), plan.ratePerSecond())), clock::get);
    long[] slots = new long[byDemand.size()];
    long[] arrivals = new long[byDemand.size()];
    for (int i = 0; i < byDemand.size(); i++) {
      Call c = byDemand.get(i);
      clock.set(Math.max(clock.get(), c.demandNanos()));
      Acquisition a = client.acquire(1, Duration.ofDays(1));
      slots[i] = clock.get() + a.waitTime().toNanos();
      arrivals[i] = slots[i] + c.latenessNanos() + c.networkNanos();
    }
    long[] sortedArrivals = arrivals.clone();
    Arrays.sort(sortedArrivals);
    int refused = 0;
    switch (provider.kind()) {
      case TOKEN_BUCKET -> {
        double tokens = provider.limit();
        double ratePerNano = provider.ratePerSecond() / 1e9;
        long last = sortedArrivals.length > 0 ? sortedArrivals[0] : 0;
        for (long t : sortedArrivals) {
          tokens = Math.min(provider.limit(), tokens + (t - last) * ratePerNano);
          last = t;
          if (tokens >= 1 - 1e-9) {
            tokens -= 1;
          } else {
            refused++;
          }
        }
      }
      case SLIDING_WINDOW -> {
        ArrayDeque<Long> window = new ArrayDeque<>();
        long w = provider.period().toNanos();
        for (long t : sortedArrivals) {
          while (!window.isEmpty() && window.peekFirst() <= t - w) {
            window.pollFirst();
          }
          if (window.size() < provider.limit()) {
            window.addLast(t);
          } else {
            refused++;
          }
        }
      }
      default -> {
        long w = provider.period().toNanos();
        long index = Long.MIN_VALUE;
        int count = 0;
        for (long t : sortedArrivals) {
          long i = Math.floorDiv(t + providerPhaseNanos, w);
          if (i != index) {
            index = i;
            count = 0;
          }
          if (count < provider.limit()) {
            count++;
          } else {
            refused++;
          }
        }
      }
    }
    return new Outcome(refused, sortedArrivals.length - refused, slots, sortedArrivals);
  }

  /** The most slots booked in any closed interval [s, s + T] that starts at a slot (any one unit of time). */
  public static int maxSlotsInWindow(long[] slots, long windowNanos) {
    long[] sorted = slots.clone();
    Arrays.sort(sorted);
    int best = 0;
    int end = 0;
    for (int start = 0; start < sorted.length; start++) {
      while (end < sorted.length && sorted[end] <= sorted[start] + windowNanos) {
        end++;
      }
      best = Math.max(best, end - start);
    }
    return best;
  }
}
