package io.pixquota.bacen;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/** A MockWebServer dispatcher that notes when each request arrived (on a given clock) and answers from a function. */
final class ArrivalRecorder extends Dispatcher {
  private final List<Long> arrivals = new ArrayList<>();
  private final AtomicInteger count = new AtomicInteger();
  private final IntFunction<MockResponse> responses;
  private final LongSupplier clock;

  ArrivalRecorder(IntFunction<MockResponse> responses, LongSupplier clock) {
    this.responses = responses;
    this.clock = clock;
  }

  /** 200 "ok" to everything; arrivals on {@link System#nanoTime()}. */
  static ArrivalRecorder ok() {
    return new ArrivalRecorder(i -> new MockResponse.Builder().code(200).body("ok").build(), System::nanoTime);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    synchronized (this) {
      arrivals.add(clock.getAsLong());
    }
    return responses.apply(count.getAndIncrement());
  }

  synchronized List<Long> arrivals() {
    return new ArrayList<>(arrivals);
  }

  int count() {
    return count.get();
  }
}
