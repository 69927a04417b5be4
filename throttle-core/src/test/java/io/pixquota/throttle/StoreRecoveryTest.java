package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store that cannot be reached for a while (a Sentinel promoting a replica, a restart): a call whose max wait covers
 * the outage asks again, holding nothing, and is served once the store answers; a failure that asking again cannot
 * change fails the call at once; an outage longer than the max wait fails it when its max wait runs out, as the store
 * being unavailable. On a clock the test moves.
 */
class StoreRecoveryTest {
  private final FakeTime time = FakeTime.manual(1_000);

  /** A local bucket whose store fails every ask until the test says it answers again. */
  private final class Outage extends ForwardingBucket {
    final AtomicInteger asked = new AtomicInteger();
    volatile boolean down = true;
    volatile boolean passing = true;

    Outage() {
      super(new LocalTokenBucket("pix", List.of(Limit.of(8, 9)), time::nanoTime));
    }

    @Override
    public Acquisition acquire(double cost, Duration maxWait) throws StoreUnavailableException, InterruptedException {
      asked.incrementAndGet();
      if (down) {
        throw new StoreUnavailableException("pix", "Redis node unreachable (RedisConnectionException)", null, passing);
      }
      return real.acquire(cost, maxWait);
    }
  }

  private CompletableFuture<Object> start(Throttle throttle) {
    CompletableFuture<Object> outcome = new CompletableFuture<>();
    throttle.book(ThrottleRequest.of("GET", "/pix/1")).start(outcome::complete, outcome::complete);
    return outcome;
  }

  @Test
  void aCallWhoseMaxWaitCoversAFailoverAsksAgainHoldingNothingAndIsServed() {
    Outage bucket = new Outage();
    Throttle throttle = Throttle.builder(bucket).timeSource(time).maxWait(Duration.ofSeconds(10)).build();
    CompletableFuture<Object> outcome = start(throttle);
    for (int ms = 0; ms < 2_400; ms += 10) { // the promotion takes 2.4 s
      time.advanceMillis(10);
    }
    assertThat(outcome).as("waiting, not failed").isNotDone();
    assertThat(bucket.asked.get()).as("asked at 0, then 0.1, 0.2, 0.4, 0.8 s later: 5 asks in 2.4 s").isEqualTo(5);
    bucket.down = false;
    time.advanceMillis(1_000);
    assertThat(outcome.join()).as("served once the new master answers, at 2.5 s").isInstanceOf(Slot.class);
    assertThat(bucket.asked.get()).isEqualTo(6);
  }

  @Test
  void aFailureAskingAgainCannotChangeFailsTheCallAtOnce() {
    Outage bucket = new Outage();
    bucket.passing = false; // a refused password, the wrong kind of node
    Throttle throttle = Throttle.builder(bucket).timeSource(time).maxWait(Duration.ofSeconds(10)).build();
    CompletableFuture<Object> outcome = start(throttle);
    assertThat(outcome.join()).isInstanceOf(BucketUnavailableException.class);
    assertThat(bucket.asked.get()).isEqualTo(1);
  }

  @Test
  void anOutageLongerThanTheMaxWaitFailsTheCallAsTheStoreUnavailableWhenItsMaxWaitRunsOut() {
    Outage bucket = new Outage();
    Throttle throttle = Throttle.builder(bucket).timeSource(time).maxWait(Duration.ofSeconds(2)).build();
    CompletableFuture<Object> outcome = start(throttle);
    long failedAtMs = -1;
    for (int ms = 10; ms <= 5_000 && failedAtMs < 0; ms += 10) {
      time.advanceMillis(10);
      if (outcome.isDone()) {
        failedAtMs = ms;
      }
    }
    assertThat(outcome.join()).isInstanceOf(BucketUnavailableException.class);
    assertThat((IOException) outcome.join()).hasMessageContaining("Redis node unreachable");
    assertThat(failedAtMs).as("at the last ask its max wait left time for: 0.1 + 0.2 + 0.4 + 0.8 s").isEqualTo(1_500);
  }
}
