package io.pixquota.throttle;

import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.store.LocalPermitPool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A throttle's routes with a permit pool (the in-memory one): calls in flight never above the cap, blocking and
 * async; the line by class, then deadline (equal max waits: first come, first served); a cancel or a max wait that
 * ends in line leaves it, and a call no permit can reach in time is refused at once; a rate and a cap on one route
 * both hold; a holder that never gives back costs its lease. Real threads and the real clock, short leases: what is
 * asserted is counts and order, not timing.
 */
class ThrottlePermitTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ExecutorService pool = Executors.newCachedThreadPool();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  /** A provider that counts calls in flight, and answers when the test lets it. */
  private static final class Provider implements Exchange<Integer> {
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final List<String> order = new CopyOnWriteArrayList<>();
    volatile CountDownLatch answer = new CountDownLatch(0);
    volatile Semaphore oneByOne; // when set, each call answers when the test gives it one permit of this
    final String name;

    Provider(String name) {
      this.name = name;
    }

    @Override
    public Integer send() throws IOException {
      int now = inFlight.incrementAndGet();
      most.accumulateAndGet(now, Math::max);
      order.add(Thread.currentThread().getName());
      try {
        Semaphore steps = oneByOne;
        if (steps != null) {
          steps.tryAcquire(5, TimeUnit.SECONDS);
        } else {
          answer.await(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException();
      } finally {
        inFlight.decrementAndGet();
      }
      return 200;
    }

    @Override
    public int status(Integer response) {
      return response;
    }

    @Override
    public String header(Integer response, String name) {
      return null;
    }
  }

  private Throttle throttle(PermitPool permits, Duration maxWait) {
    return Throttle.builder(new LocalTokenBucket("unused", List.of(Limit.of(100, 100)), System::nanoTime))
        .rule(null, "/spi/.*", permits).maxWait(maxWait).providerTimeout(permits.lease().minus(maxWait).minusMillis(1))
        .meterRegistry(registry).build();
  }

  private Future<Integer> call(Throttle throttle, Provider p, String name, Priority priority) {
    return pool.submit(() -> {
      Thread.currentThread().setName(name);
      return throttle.exchange(ThrottleRequest.of("POST", "/spi/pay").withPriority(priority), p);
    });
  }

  @Test
  void neverMoreThanTheCapInFlightAndTheLineIsServedInOrder() throws Exception {
    LocalPermitPool permits = new LocalPermitPool("spi", 2, Duration.ofSeconds(10));
    Throttle throttle = throttle(permits, Duration.ofSeconds(5));
    Provider p = new Provider("spi");
    p.oneByOne = new Semaphore(0);
    List<Future<Integer>> calls = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      calls.add(call(throttle, p, "c" + i, Priority.INTERACTIVE));
      int inLine = Math.max(0, i - 1);
      int i0 = i;
      Awaits.until("c" + i + " in flight or in line", Duration.ofSeconds(5),
          () -> p.order.size() == Math.min(i0 + 1, 2) && permits.inLine() == inLine);
    }
    assertThat(p.order).containsExactly("c0", "c1");
    // One call answered at a time: one permit comes free, so exactly one call from the line goes in next.
    for (int answered = 1; answered <= 4; answered++) {
      p.oneByOne.release();
      int seen = 2 + answered;
      Awaits.until(seen + " calls sent", Duration.ofSeconds(5), () -> p.order.size() == seen);
    }
    p.oneByOne.release(2);
    for (Future<Integer> f : calls) {
      assertThat(f.get(5, TimeUnit.SECONDS)).isEqualTo(200);
    }
    assertThat(p.most.get()).as("never above the cap").isEqualTo(2);
    assertThat(p.order).as("first come, first served").containsExactly("c0", "c1", "c2", "c3", "c4", "c5");
    assertThat(registry.get("bacen.throttle.pool.wait").tags("pool", "spi", "priority", "interactive").timer()
        .count()).isEqualTo(6);
  }

  @Test
  void aPersonGoesBeforeTheBatchInLine() throws Exception {
    LocalPermitPool permits = new LocalPermitPool("spi", 1, Duration.ofSeconds(10));
    Throttle throttle = throttle(permits, Duration.ofSeconds(5));
    Provider p = new Provider("spi");
    p.answer = new CountDownLatch(1);
    Future<Integer> first = call(throttle, p, "holder", Priority.INTERACTIVE);
    Awaits.until("the holder in flight", Duration.ofSeconds(5), () -> p.inFlight.get() == 1);
    Future<Integer> batch = call(throttle, p, "batch", Priority.BATCH);
    Awaits.until("the batch call in line", Duration.ofSeconds(5), () -> permits.inLine() == 1);
    Future<Integer> person = call(throttle, p, "person", Priority.INTERACTIVE);
    Awaits.until("the person in line behind it", Duration.ofSeconds(5), () -> permits.inLine() == 2);
    p.answer.countDown();
    first.get(5, TimeUnit.SECONDS);
    person.get(5, TimeUnit.SECONDS);
    batch.get(5, TimeUnit.SECONDS);
    assertThat(p.order).containsExactly("holder", "person", "batch");
  }

  @Test
  void aCallThatWaitsPastItsMaxWaitInLineIsRefusedAndLeavesTheLine() throws Exception {
    LocalPermitPool permits = new LocalPermitPool("spi", 1, Duration.ofSeconds(10));
    Throttle throttle = throttle(permits, Duration.ofMillis(300));
    Provider p = new Provider("spi");
    p.answer = new CountDownLatch(1);
    Future<Integer> holder = call(throttle, p, "holder", Priority.INTERACTIVE);
    Awaits.until("the holder in flight", Duration.ofSeconds(5), () -> p.inFlight.get() == 1);
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, p))
        .isInstanceOf(ThrottleRefusedException.class)
        .hasMessageContaining("waited its max wait 300 ms for a permit of pool 'spi' (1 still ahead of it)");
    p.answer.countDown();
    holder.get(5, TimeUnit.SECONDS);
    assertThat(throttle.exchange("POST", "/spi/pay", null, p)).as("the refused call left no place behind")
        .isEqualTo(200);
    assertThat(registry.get("bacen.throttle.pool.refused").tags("pool", "spi", "priority", "interactive")
        .counter().count()).isEqualTo(1);
  }

  @Test
  void aCallNoPermitCanReachBeforeItsMaxWaitIsRefusedAtOnceAndCounted() throws Exception {
    FakeTime poolTime = FakeTime.manual(1_000); // the pool's clock: the holds it learns are the test's to set
    LocalPermitPool permits = new LocalPermitPool("spi", 1, Duration.ofSeconds(10), poolTime);
    Throttle throttle = throttle(permits, Duration.ofMillis(300));
    Provider p = new Provider("spi");
    p.answer = new CountDownLatch(1);
    Future<Integer> first = call(throttle, p, "first", Priority.INTERACTIVE);
    Awaits.until("the first call in flight", Duration.ofSeconds(5), () -> p.inFlight.get() == 1);
    poolTime.advance(Duration.ofMillis(1_500)); // the pool learns that a call holds its permit 1.5 s at least
    p.answer.countDown();
    first.get(5, TimeUnit.SECONDS);
    p.answer = new CountDownLatch(1);
    Future<Integer> second = call(throttle, p, "second", Priority.INTERACTIVE);
    Awaits.until("the second call in flight", Duration.ofSeconds(5), () -> p.inFlight.get() == 1);
    // On the pool's clock, its permit comes back 1.5 s after its take at the earliest: after the 300 ms this call
    // may wait (the pool's clock stands still while it asks).
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, p))
        .isInstanceOf(ThrottleRefusedException.class)
        .hasMessageContaining("refused at once: no permit of pool 'spi' comes back within the")
        .hasMessageContaining("ms it could still wait, even first in line");
    assertThat(permits.inLine()).as("it left the line").isZero();
    assertThat(registry.get("bacen.throttle.pool.refused").tags("pool", "spi", "priority", "interactive")
        .counter().count()).isEqualTo(1);
    p.answer.countDown();
    assertThat(second.get(5, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(p.order).as("the refused call was never sent").containsExactly("first", "second");
  }

  @Test
  void asyncBookingsHoldNoThreadAndKeepTheCapAndACancelInLineLeavesIt() throws Exception {
    Throttle throttle = throttle(new LocalPermitPool("spi", 2, Duration.ofSeconds(10)), Duration.ofSeconds(5));
    Provider p = new Provider("spi");
    p.answer = new CountDownLatch(1);
    List<CompletableFuture<Integer>> done = new ArrayList<>();
    List<AsyncBooking> bookings = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      AsyncBooking b = throttle.book(ThrottleRequest.of("POST", "/spi/pay"));
      CompletableFuture<Integer> f = new CompletableFuture<>();
      b.start(slot -> pool.submit(() -> {
        try {
          f.complete(throttle.send(slot, () -> false, p));
        } catch (IOException e) {
          f.completeExceptionally(e);
        }
      }), f::completeExceptionally);
      bookings.add(b);
      done.add(f);
    }
    Awaits.until("2 in flight", Duration.ofSeconds(5), () -> p.inFlight.get() == 2);
    assertThat(bookings.get(4).cancel()).as("the last, in line").isTrue();
    assertThatThrownBy(() -> done.get(4).get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedIOException.class);
    p.answer.countDown();
    for (int i = 0; i < 4; i++) {
      assertThat(done.get(i).get(5, TimeUnit.SECONDS)).isEqualTo(200);
    }
    assertThat(p.most.get()).isEqualTo(2);
    assertThat(p.order).hasSize(4);
  }

  @Test
  void aWaiterGrantedAPermitWhoseSlotHasComeIsHandedItOnTheThreadOfTheGrantNotThroughTheTimer() throws Exception {
    Throttle throttle = throttle(new LocalPermitPool("spi", 1, Duration.ofSeconds(10)), Duration.ofSeconds(5));
    Provider p = new Provider("spi");
    CompletableFuture<Slot> first = new CompletableFuture<>();
    throttle.book(ThrottleRequest.of("POST", "/spi/pay")).start(first::complete, first::completeExceptionally);
    Slot holding = first.get(5, TimeUnit.SECONDS);
    CompletableFuture<String> handedOn = new CompletableFuture<>();
    throttle.book(ThrottleRequest.of("POST", "/spi/pay")).start(slot -> handedOn.complete(
        Thread.currentThread().getName()), handedOn::completeExceptionally);
    assertThat(handedOn).as("in line behind the one permit (the local pool answers at once)").isNotDone();
    pool.submit(() -> {
      Thread.currentThread().setName("answered");
      return throttle.send(holding, () -> false, p); // its answer gives the permit back, granted to the next
    }).get(5, TimeUnit.SECONDS);
    assertThat(handedOn.get(5, TimeUnit.SECONDS)).as("handed over where the grant was made: one thread switch less")
        .isEqualTo("answered");
  }

  /** A real pool whose answers to the first {@code lost} takes are lost on the way back, as on a Redis timeout. */
  private static PermitPool losingAnswers(PermitPool real, int lost) {
    AtomicInteger left = new AtomicInteger(lost);
    return new PermitPool() {
      @Override
      public String name() {
        return real.name();
      }

      @Override
      public int capacity() {
        return real.capacity();
      }

      @Override
      public Duration lease() {
        return real.lease();
      }

      @Override
      public PermitAnswer take(Waiter waiter, SlotAsk slot) throws StoreUnavailableException, InterruptedException {
        PermitAnswer answer = real.take(waiter, slot);
        if (left.getAndDecrement() > 0) {
          throw new StoreUnavailableException(name(), "the answer did not arrive within the timeout", null);
        }
        return answer;
      }

      @Override
      public java.util.concurrent.CompletionStage<PermitAnswer> takeAsync(Waiter waiter, SlotAsk slot) {
        try {
          return CompletableFuture.completedFuture(take(waiter, slot));
        } catch (Exception e) {
          return CompletableFuture.failedFuture(e);
        }
      }

      @Override
      public java.util.concurrent.CompletionStage<Boolean> release(Permit permit) {
        return real.release(permit);
      }

      @Override
      public void leave(Waiter waiter) {
        real.leave(waiter);
      }

      @Override
      public java.util.concurrent.CompletionStage<Void> turn(Waiter waiter, Duration atMost) {
        return real.turn(waiter, atMost);
      }

      @Override
      public Readings readings() {
        return real.readings();
      }
    };
  }

  @Test
  void aPermitGivenInAnAnswerThatNeverArrivedIsGivenBackNotHeldForItsLease() throws Exception {
    LocalPermitPool real = new LocalPermitPool("spi", 1, Duration.ofSeconds(60));
    Throttle throttle = throttle(losingAnswers(real, 2), Duration.ofMillis(500));
    Provider p = new Provider("spi");
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, p))
        .isInstanceOf(BucketUnavailableException.class);
    AsyncBooking async = throttle.book(ThrottleRequest.of("POST", "/spi/pay"));
    CompletableFuture<IOException> failed = new CompletableFuture<>();
    async.start(slot -> failed.complete(null), failed::complete);
    assertThat(failed.get(5, TimeUnit.SECONDS)).as("the async take's answer lost too")
        .isInstanceOf(BucketUnavailableException.class);
    assertThat(throttle.exchange("POST", "/spi/pay", null, p)).as("the only permit is free: both were given back")
        .isEqualTo(200);
    assertThat(p.order).hasSize(1);
  }

  @Test
  void aRateAndACapOnOneRouteBothHold() throws Exception {
    LocalTokenBucket rate = new LocalTokenBucket("pix", List.of(Limit.of(2, 10)), System::nanoTime);
    Throttle throttle = Throttle.builder(rate).rule(null, "/spi/.*", rate, 1,
        new LocalPermitPool("spi", 3, Duration.ofSeconds(10))).maxWait(Duration.ofSeconds(5))
        .providerTimeout(Duration.ofSeconds(4)).meterRegistry(registry).build();
    Provider p = new Provider("spi");
    p.answer = new CountDownLatch(1);
    List<Future<Integer>> calls = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < 6; i++) {
      calls.add(call(throttle, p, "c" + i, Priority.INTERACTIVE));
    }
    Awaits.until("3 in flight: the cap", Duration.ofSeconds(5), () -> p.inFlight.get() == 3);
    double ms = (System.nanoTime() - start) / 1e6;
    assertThat(ms).as("the third left at its rate slot, 100 ms after the burst of 2").isGreaterThanOrEqualTo(95);
    Awaits.until("the rate has a token again", Duration.ofSeconds(5), () -> rate.charge(1e-9) >= 1);
    assertThat(p.inFlight.get()).as("the rate has room again; the cap holds").isEqualTo(3);
    p.answer.countDown();
    for (Future<Integer> f : calls) {
      f.get(5, TimeUnit.SECONDS);
    }
    assertThat(p.most.get()).isEqualTo(3);
  }

  @Test
  void aHolderThatNeverGivesBackCostsItsLeaseNotItsPermit() throws Exception {
    LocalPermitPool permits = new LocalPermitPool("spi", 1, Duration.ofMillis(600));
    PermitPool.PermitAnswer dead = permits.take(PermitPool.Waiter.of(Priority.INTERACTIVE.ordinal()), null);
    long leaseEnds = System.nanoTime() + Duration.ofMillis(600).toNanos();
    assertThat(dead.permit()).isNotNull();
    Throttle throttle = throttle(permits, Duration.ofMillis(200));
    Provider p = new Provider("spi");
    assertThatThrownBy(() -> throttle.exchange("POST", "/spi/pay", null, p))
        .as("within the dead holder's lease: no permit").isInstanceOf(ThrottleRefusedException.class);
    Awaits.until("the dead holder's lease over", Duration.ofSeconds(5), () -> System.nanoTime() - leaseEnds > 0);
    long start = System.nanoTime();
    assertThat(throttle.exchange("POST", "/spi/pay", null, p)).isEqualTo(200);
    assertThat((System.nanoTime() - start) / 1e6).as("at once").isLessThan(150.0);
    assertThat(permits.readings().expiredLeases()).isEqualTo(1);
    assertThat(permits.release(dead.permit()).toCompletableFuture().get()).as("its late release frees nothing")
        .isFalse();
  }
}
