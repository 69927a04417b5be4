package io.pixquota.bacen;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;

/** A MockWebServer dispatcher that notes when each request arrived (System.nanoTime) and answers from a function. */
final class ArrivalRecorder extends Dispatcher {
  private final List<Long> arrivals = new ArrayList<>();
  private final List<String> paths = new ArrayList<>();
  private final AtomicInteger count = new AtomicInteger();
  private final IntFunction<MockResponse> responses;

  ArrivalRecorder(IntFunction<MockResponse> responses) {
    this.responses = responses;
  }

  static ArrivalRecorder ok() {
    return new ArrivalRecorder(i -> new MockResponse.Builder().code(200).body("ok").build());
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    synchronized (this) {
      arrivals.add(System.nanoTime());
      paths.add(request.getUrl().encodedPath());
    }
    return responses.apply(count.getAndIncrement());
  }

  synchronized List<Long> arrivals() {
    return new ArrayList<>(arrivals);
  }

  synchronized List<String> paths() {
    return new ArrayList<>(paths);
  }

  int count() {
    return count.get();
  }
}
