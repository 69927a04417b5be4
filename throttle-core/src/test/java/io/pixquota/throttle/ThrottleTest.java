package io.pixquota.throttle;

import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The core's throttle on its own: local buckets, a clock the test moves and an exchange that records when it was
 * sent. No transport, no store: routing, booking, waiting, refusing, cancelling, settling the answer, and the async
 * booking's way to its slot, read like a log of events.
 */
class ThrottleTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  /** An exchange that answers {@code status} (and these headers) and notes the clock at each send, in ms. */
  private static final class Recorder implements Exchange<Integer> {
    final FakeTime time;
    final long t0;
    final List<Double> sentAtMs = new CopyOnWriteArrayList<>();
    int status = 200;
    Map<String, String> headers = Map.of();

    Recorder(FakeTime time) {
      this.time = time;
      this.t0 = time.nanoTime();
    }

    @Override
    public Integer send() {
      sentAtMs.add((time.nanoTime() - t0) / 1e6);
      return status;
    }

    @Override
    public int status(Integer response) {
      return response;
    }

    @Override
    public String header(Integer response, String name) {
      return headers.get(name);
    }
  }

  private static LocalTokenBucket bucket(String name, double capacity, double rate, FakeTime time) {
    return new LocalTokenBucket(name, List.of(Limit.of(capacity, rate)), time::nanoTime);
  }

  private ThrottleBuilder throttle(TokenBucket bucket, FakeTime time) {
    return Throttle.builder(bucket).timeSource(time).meterRegistry(registry);
  }

  @Test
  void aBurstLeavesAtOnceThenEachCallAtItsOwnSlot() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(1_000);
    Throttle throttle = throttle(bucket("pix", 2, 10, time), time).build();
    Recorder provider = new Recorder(time);
    for (int i = 0; i < 4; i++) {
      assertThat(throttle.exchange("GET", "/pix/" + i, null, provider)).isEqualTo(200);
    }
    assertThat(provider.sentAtMs).containsExactly(0.0, 0.0, 100.0, 200.0);
    assertThat(registry.get("bacen.throttle.permits").tags("bucket", "pix", "result", "granted").counter().count())
        .isEqualTo(4);
  }

  @Test
  void aSlotPastTheMaxWaitIsRefusedConsumesNothingAndIsNeverSent() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(1_000);
    LocalTokenBucket bucket = bucket("pix", 1, 1, time);
    Throttle throttle = throttle(bucket, time).maxWait(Duration.ofMillis(500)).build();
    Recorder provider = new Recorder(time);
    throttle.exchange("GET", "/pix/1", null, provider);
    assertThatThrownBy(() -> throttle.exchange("GET", "/pix/2", null, provider))
        .isInstanceOf(ThrottleRefusedException.class)
        .hasMessage("Bucket 'pix' would make this call wait 1000 ms, more than its max wait 500 ms; the call was not "
            + "sent");
    assertThat(provider.sentAtMs).hasSize(1);
    assertThat(bucket.acquire(1, Duration.ofSeconds(2)).waitTime()).as("the refusal took no token")
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aRequestsOwnMaxWaitShortensTheThrottlesAndTheRefusalSaysWhichApplied() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(1_000);
    Throttle throttle = throttle(bucket("pix", 1, 1, time), time).build();
    Recorder provider = new Recorder(time);
    throttle.exchange("GET", "/pix/1", null, provider);
    ThrottleRequest request = ThrottleRequest.of("GET", "/pix/2").withMaxWait(Duration.ofMillis(300));
    assertThatThrownBy(() -> throttle.exchange(request, provider)).isInstanceOf(ThrottleRefusedException.class)
        .hasMessageContaining("more than the 300 ms its call timeout left it (max wait 10000 ms)");
  }

  @Test
  void rulesChooseTheBucketAndTheAnswersStatusSettlesItsCost() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(1_000);
    LocalTokenBucket pix = bucket("pix", 10, 0.001, time);
    LocalTokenBucket dict = bucket("dict", 30, 0.001, time);
    Throttle throttle = throttle(pix, time).rule("GET", "/dict/.*", dict, 1).responseCost(404, 20).build();
    Recorder provider = new Recorder(time);
    throttle.exchange("GET", "/pix/1", null, provider);
    provider.status = 404;
    throttle.exchange("GET", "/dict/k", null, provider);
    assertThat(pix.acquire(1, Duration.ZERO).remaining()).as("9 left of 10, then this one").isCloseTo(8, within(0.01));
    assertThat(dict.acquire(1, Duration.ZERO).remaining()).as("a 404 costs 20 in all").isCloseTo(9, within(0.01));
    assertThat(throttle.buckets()).containsExactly(pix, dict);
  }

  @Test
  void theProvidersOwn429CutsTheRateAndHoldsTheNextSlotUntilItsRetryAfter() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(1_000);
    LocalTokenBucket bucket = bucket("pix", 1, 10, time);
    Throttle throttle = throttle(bucket, time).quotaSignal("RateLimit").build();
    Recorder provider = new Recorder(time);
    provider.status = 429;
    provider.headers = Map.of("Retry-After", "2");
    throttle.exchange("GET", "/pix/1", null, provider);
    assertThat(bucket.readings().rateFactor()).as("a 429 without the quota signal: a gateway's").isEqualTo(1);
    provider.headers = Map.of("Retry-After", "2", "RateLimit", "\"pix\";r=0;t=2");
    throttle.exchange("GET", "/pix/2", null, provider);
    assertThat(bucket.readings().rateFactor()).as("the provider's own").isCloseTo(0.85, within(1e-9));
    provider.status = 200;
    throttle.exchange("GET", "/pix/3", null, provider);
    assertThat(provider.sentAtMs.get(2) - provider.sentAtMs.get(1)).as("held for its Retry-After")
        .isGreaterThanOrEqualTo(2_000);
    assertThat(registry.get("bacen.throttle.provider.ignored").tags("bucket", "pix", "reason", "no-signal")
        .counter().count()).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.rate.cuts").counter().count()).isEqualTo(1);
  }

  @Test
  void aBatchCallBooksNoFurtherThanItsHorizonAndAsksAgainHoldingNothing() throws Exception {
    FakeTime time = FakeTime.autoAdvancing(1_000);
    Throttle throttle = throttle(bucket("pix", 1, 10, time), time).build();
    Recorder provider = new Recorder(time);
    throttle.exchange("GET", "/pix/1", null, provider);
    throttle.exchange("GET", "/pix/2", Priority.BATCH, provider);
    assertThat(provider.sentAtMs).containsExactly(0.0, 100.0);
    assertThat(registry.get("bacen.throttle.deferred").tags("priority", "batch").counter().count())
        .as("asked once, told when to ask again, asked again").isEqualTo(1);
  }

  @Test
  void aCancelledWaiterIsNeverSentAndGivesItsTokensBack() throws Exception {
    FakeTime time = FakeTime.manual(1_000);
    LocalTokenBucket bucket = bucket("pix", 1, 1, time);
    Throttle throttle = throttle(bucket, time).build();
    Recorder provider = new Recorder(time);
    throttle.exchange("GET", "/pix/1", null, provider);
    AtomicBoolean canceled = new AtomicBoolean();
    CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
      try {
        throttle.exchange(ThrottleRequest.of("GET", "/pix/2").withCanceled(canceled::get), provider);
        return null;
      } catch (IOException e) {
        return e;
      }
    });
    time.awaitScheduled(1); // booked, parked until its slot
    canceled.set(true); // read by the throttle's one cancel watch, on the real clock
    time.advanceMillis(20);
    assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class)
        .hasMessage("call canceled while waiting for its slot; not sent");
    assertThat(provider.sentAtMs).hasSize(1);
    assertThat(bucket.acquire(1, Duration.ofSeconds(5)).waitTime()).as("its token given back: 980 ms, not 1980")
        .isEqualTo(Duration.ofMillis(980));
  }

  @Test
  void anAsyncBookingHandsOverEachSlotWhenItComesWithoutAThread() throws Exception {
    FakeTime time = FakeTime.manual(1_000);
    Throttle throttle = throttle(bucket("pix", 1, 10, time), time).build();
    Recorder provider = new Recorder(time);
    List<Slot> due = new CopyOnWriteArrayList<>();
    for (int i = 0; i < 3; i++) {
      throttle.book(ThrottleRequest.of("GET", "/pix/" + i)).start(slot -> {
        due.add(slot);
        try { // as an adapter hands the send to its client at once
          throttle.send(slot, () -> false, provider);
        } catch (IOException e) {
          throw new IllegalStateException(e);
        }
      }, e -> { });
    }
    assertThat(due).as("the first slot is now; nothing waits on a thread").hasSize(1);
    assertThat(time.scheduledTasks()).as("the others wait on the timer").isEqualTo(2);
    time.advanceMillis(100);
    time.advanceMillis(100);
    assertThat(provider.sentAtMs).containsExactly(0.0, 100.0, 200.0);
    for (Slot slot : due) {
      assertThat(slot.bookedBy(throttle)).isTrue();
      assertThat(slot.claim()).isTrue();
      assertThat(slot.claim()).as("one send per slot").isFalse();
    }
  }

  @Test
  void anAsyncBookingCancelledWhileItWaitsFailsAndGivesItsTokensBack() throws Exception {
    FakeTime time = FakeTime.manual(1_000);
    LocalTokenBucket bucket = bucket("pix", 1, 1, time);
    Throttle throttle = throttle(bucket, time).build();
    bucket.acquire(1, Duration.ZERO);
    List<Slot> due = new ArrayList<>();
    List<IOException> failed = new CopyOnWriteArrayList<>();
    AsyncBooking booking = throttle.book(ThrottleRequest.of("GET", "/pix/1"));
    booking.start(due::add, failed::add);
    assertThat(booking.cancel()).as("still before its send").isTrue();
    assertThat(failed).singleElement().isInstanceOf(InterruptedIOException.class);
    time.advanceMillis(2_000);
    assertThat(due).as("never handed over").isEmpty();
    assertThat(bucket.acquire(1, Duration.ZERO).granted()).as("its token given back").isTrue();
  }

  @Test
  void aSlotThatWentBadBeforeItsSendIsMissedAndBookedAgainWithoutAThread() throws Exception {
    FakeTime time = FakeTime.manual(1_000);
    Throttle throttle = throttle(bucket("pix", 1, 10, time), time).build();
    Recorder provider = new Recorder(time);
    List<Slot> due = new CopyOnWriteArrayList<>();
    AsyncBooking booking = throttle.book(ThrottleRequest.of("GET", "/pix/1"));
    booking.start(due::add, e -> { });
    Slot first = due.get(0);
    time.advanceMillis(60); // the client queued it past the 50 ms late limit
    assertThatThrownBy(() -> throttle.send(first, () -> false, provider)).isInstanceOf(SlotMissedException.class);
    assertThat(provider.sentAtMs).isEmpty();
    assertThat(booking.missed(first)).isTrue();
    assertThat(due).as("booked again: the next slot is 100 ms after the missed one").hasSize(1);
    time.advanceMillis(40);
    assertThat(due).hasSize(2);
    throttle.send(due.get(1), () -> false, provider);
    assertThat(provider.sentAtMs).containsExactly(100.0);
    assertThat(registry.get("bacen.throttle.rebooked").counter().count()).isEqualTo(1);
  }

  @Test
  void builderRejectsBadValuesNamingThem() {
    FakeTime time = FakeTime.manual(1_000);
    LocalTokenBucket bucket = bucket("pix", 2, 1, time);
    assertThatThrownBy(() -> Throttle.builder(bucket).rule("GET", "/x", bucket, 3).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("rule GET /x costs 3.0, more than bucket 'pix' can ever hold (capacity 2.0): no such call could "
            + "be admitted");
    assertThatThrownBy(() -> Throttle.builder(bucket).maxWait(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait");
    assertThatThrownBy(() -> ThrottleRequest.of(" ", "/x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("method");
  }
}
