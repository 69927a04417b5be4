package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.BucketReadings;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.TokenBucket;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A cut of the rate while a long line of calls waits: the provider, shared with a foreign system that the throttle
 * does not see, refuses some calls; each refusal that counts cuts the rate, and the calls already waiting move to the
 * new rate in their order, without asking the store again, each refused only by its own max wait. Read on a clock the
 * test moves, the provider counting what arrives.
 */
class RateCutTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.manual(1_000);

  /** The provider's own token bucket (10 + 10/s), spent by the throttle's calls and by a foreign system's. */
  private final class Provider {
    private double tokens = 10;
    private long lastNanos = time.nanoTime();
    int served;
    int refused;

    boolean take() {
      long now = time.nanoTime();
      tokens = Math.min(10, tokens + 10 * (now - lastNanos) / 1e9);
      lastNanos = now;
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }
  }

  /** The bucket's every round trip to its store counted: acquires, charges, refunds and refusal reports. */
  private static final class Counted extends ForwardingBucket {
    final AtomicInteger trips = new AtomicInteger();

    Counted(TokenBucket real) {
      super(real);
    }

    @Override
    public Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException, InterruptedException {
      trips.incrementAndGet();
      return real.acquire(cost, maxWait);
    }

    @Override
    public double refund(double cost) throws StoreUnavailableException, InterruptedException {
      trips.incrementAndGet();
      return real.refund(cost);
    }

    @Override
    public Validity validity(Acquisition granted) {
      return real.validity(granted);
    }

    @Override
    public Acquisition retimed(Acquisition granted) {
      return real.retimed(granted);
    }

    @Override
    public Refusal providerRefused(Acquisition booked, Duration retryAfter)
        throws StoreUnavailableException, InterruptedException {
      trips.incrementAndGet();
      return real.providerRefused(booked, retryAfter);
    }

    @Override
    public BucketReadings readings() {
      return real.readings();
    }
  }

  @Test
  void callsInATwentySecondLineMoveToEachCutRateWithoutAskingAgainAndAreServedOrRefusedByTheProvider()
      throws Exception {
    Counted bucket = new Counted(new LocalTokenBucket("pix", List.of(Limit.of(8, 9)), time::nanoTime));
    Throttle throttle = Throttle.builder(bucket).timeSource(time).meterRegistry(registry)
        .maxWait(Duration.ofSeconds(120)).quotaSignal("RateLimit").build();
    Provider provider = new Provider();
    int calls = 200;
    AtomicInteger answered = new AtomicInteger();
    AtomicInteger tooMany = new AtomicInteger();
    List<IOException> failures = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      AsyncBooking booking = throttle.book(ThrottleRequest.of("GET", "/pix/" + i));
      booking.start(slot -> {
        try {
          Departure left = throttle.depart(slot);
          boolean ok = provider.take();
          if (!ok) {
            provider.refused++;
            tooMany.incrementAndGet();
          } else {
            provider.served++;
          }
          left.answered(ok ? 200 : 429, name -> ok ? null : Map.of("Retry-After", "1",
              "RateLimit", "\"pix\";r=0;t=1").get(name));
          answered.incrementAndGet();
        } catch (SlotMissedException e) {
          booking.missed(slot);
        } catch (IOException e) {
          failures.add(e);
        }
      }, failures::add);
    }
    int foreign = 0; // another system on the same credentials: 3 calls at the start of every second
    for (int ms = 1; ms <= 60_000 && answered.get() + failures.size() < calls; ms++) {
      time.advanceMillis(1);
      if (ms % 1000 == 500) {
        for (int i = 0; i < 3; i++) {
          provider.take();
          foreign++;
        }
      }
    }
    assertThat(failures).as("no call failed: each was served or answered 429").isEmpty();
    assertThat(answered.get()).isEqualTo(calls);
    assertThat(provider.served + provider.refused).as("counted at the provider").isEqualTo(calls);
    assertThat(foreign).as("the line was about 20 s deep").isGreaterThan(60);
    double cuts = registry.get("bacen.throttle.rate.cuts").counter().count();
    assertThat(cuts).as("the provider's 429s cut the rate").isGreaterThanOrEqualTo(1);
    assertThat(registry.get("bacen.throttle.superseded").counter().count())
        .as("calls waiting when a cut came moved to the new rate").isGreaterThan(100);
    assertThat(bucket.trips.get() - tooMany.get())
        .as("one acquire a call, and the 429s' reports: no call asked again after a cut (%d cuts, %d 429s)",
            (long) cuts, tooMany.get())
        .isLessThanOrEqualTo(calls);
    assertThat(tooMany.get()).as("the foreign system's share is not the throttle's to see; the cuts make room for it")
        .isLessThanOrEqualTo(8);
  }
}
