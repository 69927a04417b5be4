package io.pixquota.throttle;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import io.pixquota.throttle.support.TimeSource;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A call's way through the engine, taken once per JVM by {@link Throttle#preload}, on a private in-memory bucket and
 * an exchange that sends nothing: blocking, handed over and async. The first burst of a service then finds every class
 * of the way loaded and the process's timer running; on a cold JVM their loading, on the burst's own calls, made the
 * calls granted at once leave past the late limit and book again (the demo's first burst: 6 of its 8).
 */
final class EngineWarmUp {
  private static final AtomicBoolean DONE = new AtomicBoolean();
  /** What the warm-up's exchange answers: it never reaches a provider. */
  private static final Exchange<Integer> NOTHING_SENT = new Exchange<>() {
    @Override
    public Integer send() {
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
  };

  private EngineWarmUp() {}

  /** Takes the way once per JVM; a later call does nothing. Each call is granted at once: nothing waits for time. */
  static void once(TimeSource time) throws InterruptedException {
    if (!DONE.compareAndSet(false, true)) {
      return;
    }
    Throttle warm = Throttle.builder(new LocalTokenBucket("warm-up", List.of(Limit.of(4, 1)), time::nanoTime))
        .timeSource(time).build();
    ThrottleRequest request = ThrottleRequest.of("GET", "/warm-up");
    try {
      warm.exchange(request, NOTHING_SENT); // the blocking way: parked on its booking, then sent and settled
      BlockingBooking blocking = BlockingBooking.of(warm.book(request)); // a transport's: handed over, then sent
      warm.send(blocking.await(), () -> false, NOTHING_SENT);
      CompletableFuture<Slot> due = new CompletableFuture<>(); // the async way: on the timer, then departed
      warm.book(request).start(due::complete, due::completeExceptionally);
      warm.depart(due.get(10, TimeUnit.SECONDS)).answered(200, name -> null);
    } catch (IOException | ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the engine's warm-up failed on an in-memory bucket: " + e, e);
    }
  }
}
