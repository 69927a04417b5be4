package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalPermitPool;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A blocking caller whose slot has come lets the callers of its bucket whose slots came before leave first (until
 * they are sent), for at most half the late limit. On the test's clock; the bucket is a real local one (1 token, 10
 * per s).
 */
class LeavingOrderTest {
  private final FakeTime time = FakeTime.manual(1_000);
  private final LocalTokenBucket bucket = new LocalTokenBucket("pix", List.of(Limit.of(1, 10)), time::nanoTime);

  private Throttle throttle(Duration lateLimit) {
    return ThrottleTesting.builder(bucket, time).maxWait(Duration.ofSeconds(5)).lateLimit(lateLimit).build();
  }

  private static AsyncBooking booked(Throttle throttle, String id) {
    AsyncBooking b = throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/" + id));
    b.start(slot -> { }, e -> { });
    return b;
  }

  /** An exchange that answers 200 with 1. */
  private static final Exchange<Integer> OK = new Exchange<>() {
    @Override
    public Integer send() {
      return 1;
    }

    @Override
    public int status(Integer response) {
      return 200;
    }

    @Override
    public String header(Integer response, String name) {
      return null;
    }
  };

  private AsyncBooking a;
  private AsyncBooking b;
  private LeavingOrder order;

  /** The bucket's token taken, a booked for 100 ms and b for 200 ms; both slots come (the clock at 200 ms). */
  private void twoSlotsCome(Duration lateLimit) {
    Throttle throttle = throttle(lateLimit);
    booked(throttle, "first");
    a = booked(throttle, "a");
    b = booked(throttle, "b");
    order = a.waits.leaving();
    time.advanceMillis(200);
  }

  /** Passes, then leaves as a call sent at once does. */
  private void passAndLeave(LeavingOrder.Ticket t, SlotWaits waits, long deadline) {
    order.pass(t, waits, deadline);
    order.leave(t);
  }

  /** Passes and leaves on another thread; returns once it parks in {@code pass}. */
  private CompletableFuture<Void> passing(LeavingOrder.Ticket t, SlotWaits waits, long deadline) {
    CompletableFuture<Void> passed = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      passAndLeave(t, waits, deadline);
      passed.complete(null);
    });
    thread.start();
    while (!passed.isDone() && (t.waiting == null || thread.getState() != Thread.State.TIMED_WAITING)) {
      Thread.onSpinWait();
    }
    return passed;
  }

  @Test
  void aCallWhoseSlotCameLaterWaitsForTheOneBeforeItToLeave() throws Exception {
    twoSlotsCome(Duration.ofSeconds(60));
    LeavingOrder.Ticket ta = order.due(a.booking);
    LeavingOrder.Ticket tb = order.due(b.booking);
    CompletableFuture<Void> passed = passing(tb, b.waits, tb.slotNanos + TimeUnit.SECONDS.toNanos(30));
    assertThat(passed).as("a's thread has not left: b waits").isNotDone();
    order.leave(ta);
    passed.get(10, TimeUnit.SECONDS);
    assertThat(order.lines()).isZero();
  }

  @Test
  void aCallWhoseThreadHasPassedKeepsItsPlaceUntilItIsSentOrItsCallEnds() throws Exception {
    Throttle throttle = throttle(Duration.ofSeconds(60));
    BlockingBooking first = BlockingBooking.of(throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/first")));
    Slot firstSlot = first.await(); // the bucket's token; its thread has passed and is on its way to the send
    BlockingBooking second = BlockingBooking.of(throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/second")));
    BlockingBooking third = BlockingBooking.of(throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/third")));
    CompletableFuture<Slot> secondSlot = new CompletableFuture<>();
    CompletableFuture<Slot> thirdSlot = new CompletableFuture<>();
    awaitOn(second, secondSlot);
    awaitOn(third, thirdSlot);
    time.advanceMillis(200); // both slots come; their threads wake, and wait for the calls before them to be sent
    order = first.booking().waits.leaving();
    assertThatThrownBy(() -> secondSlot.get(200, TimeUnit.MILLISECONDS)).as("first not sent yet")
        .isInstanceOf(TimeoutException.class);
    assertThat(throttle.send(firstSlot, () -> false, OK)).isEqualTo(1);
    Slot s = secondSlot.get(10, TimeUnit.SECONDS);
    assertThat(thirdSlot).as("second not sent yet").isNotDone();
    assertThat(s.ended(new IOException("refused"))).as("never sent: its call ended before").isTrue();
    thirdSlot.get(10, TimeUnit.SECONDS).ended(null);
    assertThat(order.lines()).isZero();
  }

  /** Awaits {@code booking}'s slot on a thread of its own; returns once the booking waits for it. */
  private static void awaitOn(BlockingBooking booking, CompletableFuture<Slot> slot) {
    Thread thread = new Thread(() -> {
      try {
        slot.complete(booking.await());
      } catch (IOException e) {
        slot.completeExceptionally(e);
      }
    });
    thread.start();
    while (thread.getState() != Thread.State.WAITING && !slot.isDone()) {
      Thread.onSpinWait();
    }
  }

  @Test
  void theFirstOfItsLineLeavesAtOnceAndNoCallWaitsPastItsDeadlineOrForAStaleSlot() throws Exception {
    twoSlotsCome(Duration.ofMillis(100));
    LeavingOrder.Ticket ta = order.due(a.booking);
    passAndLeave(ta, a.waits, ta.slotNanos); // nothing before it
    order.due(a.booking); // a slot whose thread never comes
    LeavingOrder.Ticket tb = order.due(b.booking);
    long started = System.nanoTime();
    passAndLeave(tb, b.waits, time.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
    assertThat(System.nanoTime() - started).as("waited for its deadline, 20 ms on, not more")
        .isBetween(TimeUnit.MILLISECONDS.toNanos(20), TimeUnit.SECONDS.toNanos(5));
    time.advanceMillis(101); // the stuck slot is past the late limit: whoever comes next does not wait for it
    LeavingOrder.Ticket later = order.due(b.booking);
    passAndLeave(later, b.waits, time.nanoTime() + TimeUnit.SECONDS.toNanos(30));
    assertThat(order.lines()).as("the stale ticket went with it").isZero();
  }

  @Test
  void aStaleSlotDroppedByACallBehindWakesTheCallItHeldUp() throws Exception {
    CompletableFuture<Void> xPassed = aStuckSlotAndACallParkedBehindIt();
    time.advanceMillis(50); // a's slot is past the late limit, x's not; x, parked, does not see it
    LeavingOrder.Ticket y = order.due(b.booking);
    long started = System.nanoTime();
    passAndLeave(y, b.waits, time.nanoTime() + TimeUnit.SECONDS.toNanos(30)); // drops a's ticket, wakes x, follows
    assertThat(System.nanoTime() - started).as("x went at once, and y after it, not at y's deadline 30 s on")
        .isLessThan(TimeUnit.SECONDS.toNanos(5));
    xPassed.get(5, TimeUnit.SECONDS);
    assertThat(order.lines()).isZero();
  }

  @Test
  void aWaitingCallWhoseOwnSlotGoesStaleIsWokenToBookAgain() throws Exception {
    CompletableFuture<Void> xPassed = aStuckSlotAndACallParkedBehindIt();
    time.advanceMillis(101); // both slots past the late limit: x's thread, when it goes on, books again
    LeavingOrder.Ticket y = order.due(b.booking);
    passAndLeave(y, b.waits, time.nanoTime() + TimeUnit.SECONDS.toNanos(30)); // drops both, wakes x
    xPassed.get(5, TimeUnit.SECONDS);
    assertThat(order.lines()).isZero();
  }

  /**
   * Two slots come (a late limit of 100 ms): a's thread never comes, and a call x of b's slot parks behind it, its
   * deadline 30 s on. Returns when x has passed.
   */
  private CompletableFuture<Void> aStuckSlotAndACallParkedBehindIt() {
    twoSlotsCome(Duration.ofMillis(100));
    order.due(a.booking);
    LeavingOrder.Ticket x = order.due(b.booking);
    return passing(x, b.waits, time.nanoTime() + TimeUnit.SECONDS.toNanos(30));
  }

  @Test
  void aPermitsHolderTakesNoTicketAndLeavesAtOnce() throws Exception {
    Throttle throttle = ThrottleTesting.builder(bucket, time).maxWait(Duration.ofSeconds(5))
        .lateLimit(Duration.ofSeconds(60)).rule(null, "/spi/.*", bucket, 1,
            new LocalPermitPool("spi", 1, Duration.ofSeconds(10))).providerTimeout(Duration.ofSeconds(4)).build();
    a = booked(throttle, "a"); // the bucket's token
    order = a.waits.leaving();
    order.due(a.booking); // its thread has not left: a blocking call without a permit would wait 30 s behind it
    time.advanceMillis(100); // the next token
    CompletableFuture<Integer> sent = CompletableFuture.supplyAsync(() -> {
      try {
        return throttle.exchange(ThrottleRequest.of("GET", "/spi/x"), OK);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    assertThat(sent.get(5, TimeUnit.SECONDS)).as("sent with its permit at once").isEqualTo(1);
    assertThat(order.lines()).as("a's ticket alone").isEqualTo(1);
  }

  @Test
  void aBlockingCallLeavesNoTicketBehindWhenItLeavesOrIsInterrupted() throws Exception {
    Throttle throttle = throttle(Duration.ofMillis(100));
    BlockingBooking now = BlockingBooking.of(throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/now")));
    Slot slot = now.await(); // the bucket's token: handed over at once, its ticket held until it is sent
    order = now.booking().waits.leaving();
    assertThat(order.lines()).isEqualTo(1);
    assertThat(throttle.send(slot, () -> false, OK)).isEqualTo(1);
    assertThat(order.lines()).isZero();
    BlockingBooking waiting = BlockingBooking.of(throttle.book(ThrottleRequest.of("GET", "/api/v2/pix/wait")));
    CompletableFuture<Throwable> failed = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        waiting.await();
        failed.complete(null);
      } catch (Exception e) {
        failed.complete(e);
      }
    });
    thread.start();
    while (thread.getState() != Thread.State.WAITING && !failed.isDone()) {
      Thread.onSpinWait();
    }
    thread.interrupt();
    assertThat(failed.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
    time.advanceMillis(100); // its slot would have come: nothing is handed over, no ticket taken
    assertThat(order.lines()).isZero();
  }
}
