package io.pixquota.throttle.okhttp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/** A MockWebServer dispatcher that notes when each request arrived (on a given clock) and answers from a function. */
public final class ArrivalRecorder extends Dispatcher {
  private final List<Long> arrivals = new ArrayList<>();
  private final AtomicInteger count = new AtomicInteger();
  private final IntFunction<MockResponse> responses;
  private final LongSupplier clock;

  public ArrivalRecorder(IntFunction<MockResponse> responses, LongSupplier clock) {
    this.responses = responses;
    this.clock = clock;
  }

  /** 200 "ok" to everything; arrivals on {@link System#nanoTime()}. */
  public static ArrivalRecorder ok() {
    return new ArrivalRecorder(i -> new MockResponse.Builder().code(200).body("ok").build(), System::nanoTime);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    synchronized (this) {
      arrivals.add(clock.getAsLong());
      notifyAll();
    }
    return responses.apply(count.getAndIncrement());
  }

  public synchronized List<Long> arrivals() {
    return new ArrayList<>(arrivals);
  }

  public int count() {
    return count.get();
  }

  /** Waits (really, at most 10 s) until {@code n} requests have arrived and had their arrival noted. */
  public synchronized void awaitArrivals(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (arrivals.size() < n) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError(arrivals.size() + " requests arrived, expected " + n);
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
  }
}
