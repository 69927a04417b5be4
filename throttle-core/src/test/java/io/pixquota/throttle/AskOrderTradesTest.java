package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.TokenBucket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Calls that reach the bucket in another order than they were asked in leave in the order asked: a booking whose
 * slot comes after the slots of later-asked calls of its process takes the earliest of them, and they move on one.
 * On the test's clock; the bucket is a real local one (1 token, 10 per s: a slot every 100 ms).
 */
class AskOrderTradesTest {
  private final FakeTime time = FakeTime.manual(1_000);
  private final LocalTokenBucket bucket = new LocalTokenBucket("pix", List.of(Limit.of(1, 10)), time::nanoTime);
  private final Throttle throttle = ThrottleTesting.builder(bucket, time).maxWait(Duration.ofSeconds(5)).build();
  private final List<String> left = new CopyOnWriteArrayList<>();

  private AsyncBooking book(String name) {
    AsyncBooking b = throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/" + name));
    long asked = b.booking.askOrder;
    while (System.nanoTime() == asked) {
      Thread.onSpinWait(); // the next call is asked strictly later
    }
    return b;
  }

  private void start(AsyncBooking b, String name) {
    b.start(slot -> left.add(name), e -> left.add(name + " failed: " + e));
  }

  @Test
  void callsBookedInTheOtherOrderTheyWereAskedInLeaveInTheOrderAsked() {
    start(book("first"), "first"); // the bucket's one token: leaves now
    AsyncBooking a = book("a");
    AsyncBooking b = book("b");
    AsyncBooking c = book("c");
    start(c, "c"); // asked last, booked first: 100 ms
    start(b, "b"); // 200 ms
    start(a, "a"); // asked first, booked last: 300 ms, traded to 100 ms; b to 200, c to 300
    for (int i = 0; i < 3; i++) {
      time.advanceMillis(100);
    }
    assertThat(left).containsExactly("first", "a", "b", "c");
    assertThat(a.booking.slotNanos()).isLessThan(b.booking.slotNanos()).isLessThan(c.booking.slotNanos());
  }

  @Test
  void aCallDelayedWhileThirtyTwoLaterAskedOnesBookedStillLeavesFirst() {
    start(book("first"), "first");
    AsyncBooking delayed = book("delayed"); // its thread held before it books: 10,000 virtual threads asking at
    List<AsyncBooking> later = new java.util.ArrayList<>(); // 13 a millisecond pass it in 2.5 ms
    for (int i = 0; i < 32; i++) {
      later.add(book("later" + i));
    }
    for (int i = 0; i < later.size(); i++) {
      start(later.get(i), "later" + i);
    }
    start(delayed, "delayed"); // slot 3.3 s, traded to 100 ms; each of the others one slot on
    for (int i = 0; i <= later.size(); i++) {
      time.advanceMillis(100);
    }
    assertThat(left).hasSize(34).startsWith("first", "delayed", "later0", "later1").endsWith("later31");
  }

  @Test
  void aSlotAboutToComeDoesNotMoveAndACallWithNothingLaterAskedBeforeItKeepsItsSlot() {
    start(book("first"), "first");
    AsyncBooking a = book("a");
    AsyncBooking b = book("b");
    AsyncBooking c = book("c");
    start(b, "b"); // asked after a: 100 ms
    time.advanceMillis(99);
    start(a, "a"); // 200 ms: b's slot is 1 ms away, within the guard: b keeps it
    start(c, "c"); // asked last, 300 ms: nothing asked after it waits before it
    time.advanceMillis(1);
    assertThat(left).containsExactly("first", "b");
    time.advanceMillis(100);
    assertThat(left).containsExactly("first", "b", "a");
    time.advanceMillis(100);
    assertThat(left).containsExactly("first", "b", "a", "c");
  }

  @Test
  void callsOfAnotherCostDoNotTrade() {
    LocalTokenBucket two = new LocalTokenBucket("pix", List.of(Limit.of(2, 10)), time::nanoTime);
    Throttle costly = ThrottleTesting.builder(two, time).rule(null, "/costly/.*", two, 2)
        .maxWait(Duration.ofSeconds(5)).build();
    costly.book(ThrottleRequest.of("GET", "/costly/first")).start(slot -> left.add("first"), e -> { });
    AsyncBooking a = costly.book(ThrottleRequest.of("GET", "/api/v2/pix/a"));
    while (System.nanoTime() == a.booking.askOrder) {
      Thread.onSpinWait();
    }
    AsyncBooking x = costly.book(ThrottleRequest.of("GET", "/costly/x"));
    start(x, "x"); // asked after a, booked first: two tokens, 200 ms
    start(a, "a"); // 300 ms: a slot of another size is not a's to take
    time.advanceMillis(200);
    assertThat(left).containsExactly("first", "x");
    time.advanceMillis(100);
    assertThat(left).containsExactly("first", "x", "a");
  }

  @Test
  void aTradedSlotIsTheBucketsAndACancelGivesItsTokenBack() throws Exception {
    start(book("first"), "first");
    AsyncBooking a = book("a");
    AsyncBooking b = book("b");
    start(b, "b");
    start(a, "a"); // a 100 ms, b 200 ms
    assertThat(b.cancel()).isTrue(); // b now holds what was a's slot, 200 ms
    time.advanceMillis(100);
    assertThat(left).containsExactly("first", "b failed: java.io.InterruptedIOException: call canceled while "
        + "waiting for its slot; not sent", "a");
    assertThat(bucket.acquire(1, Duration.ofSeconds(1)).waitTime()).as("b's token back: the next slot is b's, 100 ms "
        + "on, not 200").isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void aCallBookedAfterOneAskedBeforeItWithAnEarlierSlotMovesBehindIt() {
    LateReplies late = new LateReplies(bucket);
    Throttle slow = ThrottleTesting.builder(late, time).maxWait(Duration.ofSeconds(5)).build();
    slow.book(ThrottleRequest.of("GET", "/api/v2/pix/first")).start(slot -> left.add("first"), e -> { });
    AsyncBooking a = slow.book(ThrottleRequest.of("GET", "/api/v2/pix/a"));
    while (System.nanoTime() == a.booking.askOrder) {
      Thread.onSpinWait();
    }
    AsyncBooking b = slow.book(ThrottleRequest.of("GET", "/api/v2/pix/b"));
    late.holding = true;
    start(a, "a"); // booked at 0 for 100 ms on the bucket's clock; its reply read 140 ms late: 240 ms here
    late.holding = false;
    time.advanceMillis(140);
    late.read(time.nanoTime());
    time.advanceMillis(10);
    start(b, "b"); // asked after a, booked at 150 for 200 ms and read at once: before a's 240, so it moves behind a
    assertThat(a.booking.slotNanos()).isEqualTo(time.nanoTime() + Duration.ofMillis(50).toNanos());
    time.advanceMillis(50);
    assertThat(left).containsExactly("first", "a");
    time.advanceMillis(40);
    assertThat(left).containsExactly("first", "a", "b");
  }

  /** A real bucket whose replies, while held, are read later: as a store's reply that waited for its reader. */
  private static final class LateReplies extends ForwardingBucket {
    private CompletableFuture<Acquisition> held;
    private Acquisition answer;
    volatile boolean holding;

    LateReplies(TokenBucket real) {
      super(real);
    }

    @Override
    public CompletionStage<Acquisition> acquireAsync(double cost, Duration maxWait, long askedAt) {
      if (!holding) {
        return real.acquireAsync(cost, maxWait, askedAt);
      }
      answer = real.acquireAsync(cost, maxWait, askedAt).toCompletableFuture().join();
      held = new CompletableFuture<>();
      return held;
    }

    /** The held reply, read at {@code nanos}. */
    void read(long nanos) {
      held.complete(Acquisition.of(answer.granted(), answer.waitTime(), answer.remaining(), answer.slotMicros(),
          nanos, answer.stamp(), answer.tokensOf()));
    }

    @Override
    public Validity validity(Acquisition granted) {
      return real.validity(granted);
    }
  }

  @Test
  void theGroupsOfBucketsNoCallWaitsOnAreForgotten() {
    SlotWaits waits = book("probe").waits; // the throttle's own
    for (int i = 0; i < AskOrderTrades.SWEEP - 1; i++) { // a lookup's own bucket per user, each with a call waiting
      LocalTokenBucket own = new LocalTokenBucket("user-" + i, List.of(Limit.of(1, 10)), time::nanoTime);
      for (int k = 0; k < 2; k++) {
        throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/u" + i).withBucket(own)).start(s -> { }, e -> { });
      }
    }
    assertThat(waits.trades().groups()).isEqualTo((int) AskOrderTrades.SWEEP - 1);
    time.advanceMillis(200); // their slots have come and gone
    start(book("first"), "first");
    start(book("next"), "next"); // the 4,096th booking that waits: the idle groups go
    assertThat(waits.trades().groups()).isEqualTo(1);
  }
}
