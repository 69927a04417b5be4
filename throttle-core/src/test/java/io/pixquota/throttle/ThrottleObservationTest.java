package io.pixquota.throttle;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Each call's wait as a Micrometer observation ({@code pixquota.wait}): under the HTTP client's observation, with its
 * outcome and its wait, stopped when the call leaves or gives up; the meters keep their names. A clock the test owns.
 */
class ThrottleObservationTest {
  private final TestObservationRegistry observations = TestObservationRegistry.create();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private final AtomicInteger stopped = new AtomicInteger();

  {
    observations.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }

      @Override
      public void onStop(Observation.Context context) {
        if ("pixquota.wait".equals(context.getName())) {
          stopped.incrementAndGet();
        }
      }
    });
  }

  private static final Exchange<Integer> OK = Answering.status(200);

  private Throttle throttle(Duration maxWait) {
    LocalTokenBucket bucket = new LocalTokenBucket("pix", List.of(Limit.of(1, 10)), time::nanoTime);
    return Throttle.builder(bucket).timeSource(time).meterRegistry(registry).observationRegistry(observations)
        .maxWait(maxWait).build();
  }

  @Test
  void aBlockingCallsWaitIsAnObservationUnderTheClientsWithItsOutcomeAndItsWait() throws Exception {
    Throttle throttle = throttle(Duration.ofSeconds(5));
    Observation client = Observation.start("http.client.requests", observations);
    try (Observation.Scope scope = client.openScope()) {
      assertThat(scope.getCurrentObservation()).isSameAs(client);
      throttle.exchange("GET", "/pix/1", null, OK);
      throttle.exchange("GET", "/pix/2", Priority.BATCH, OK); // one slot later: 100 ms
    }
    client.stop();
    TestObservationRegistryAssert.assertThat(observations).hasNumberOfObservationsWithNameEqualTo("pixquota.wait", 2)
        .forAllObservationsWithNameEqualTo("pixquota.wait", o -> o
            .hasContextualNameEqualTo("waiting for quota").hasParentObservationEqualTo(client)
            .hasLowCardinalityKeyValue("bucket", "pix").hasLowCardinalityKeyValue("outcome", "granted"))
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("priority", "interactive")
            .hasHighCardinalityKeyValue("wait.ms", "0"))
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("priority", "batch")
            .hasHighCardinalityKeyValue("wait.ms", "100"));
    assertThat(stopped).as("both stopped").hasValue(2);
    assertThat(registry.get("bacen.throttle.wait").tag("bucket", "pix").timers()).as("the meters as before")
        .hasSize(2);
  }

  @Test
  void aRefusedCallsObservationSaysRefusedAndCarriesTheError() throws Exception {
    Throttle throttle = throttle(Duration.ofMillis(50));
    throttle.exchange("GET", "/pix/1", null, OK);
    assertThatThrownBy(() -> throttle.exchange("GET", "/pix/2", null, OK))
        .isInstanceOf(ThrottleRefusedException.class);
    TestObservationRegistryAssert.assertThat(observations).hasNumberOfObservationsWithNameEqualTo("pixquota.wait", 2)
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("outcome", "refused").hasError());
    assertThat(stopped).hasValue(2);
  }

  @Test
  void anAsyncBookingsWaitEndsWhenItDepartsOrIsCancelled() throws Exception {
    Throttle throttle = throttle(Duration.ofSeconds(5));
    Observation client = Observation.start("http.client.requests", observations);
    CompletableFuture<Departure> left = new CompletableFuture<>();
    AsyncBooking first = throttle.book(ThrottleRequest.of("GET", "/pix/1"), client);
    first.start(slot -> {
      try {
        left.complete(throttle.depart(slot));
      } catch (IOException e) {
        left.completeExceptionally(e);
      }
    }, left::completeExceptionally);
    Departure departure = left.get(5, TimeUnit.SECONDS);
    assertThat(departure.answered(200, h -> null)).isTrue();
    assertThat(departure.answered(200, h -> null)).as("once").isFalse();
    AsyncBooking second = throttle.book(ThrottleRequest.of("GET", "/pix/2"), client);
    CompletableFuture<IOException> failed = new CompletableFuture<>();
    second.cancel();
    second.start(slot -> failed.complete(null), failed::complete);
    assertThat(failed.get(5, TimeUnit.SECONDS)).isNotNull();
    assertThat(stopped).as("the cancelled wait ended with the cancel, before its parent").hasValue(2);
    client.stop();
    TestObservationRegistryAssert.assertThat(observations).hasNumberOfObservationsWithNameEqualTo("pixquota.wait", 2)
        .forAllObservationsWithNameEqualTo("pixquota.wait", o -> o.hasParentObservationEqualTo(client))
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("outcome", "granted"))
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("outcome", "cancelled").doesNotHaveError());
  }

  @Test
  void aWaitCancelledBeforeItsSlotEndsAtOnceAsCancelledNotAsAnError() throws Exception {
    FakeTime manual = FakeTime.manual(1_000);
    LocalTokenBucket bucket = new LocalTokenBucket("pix", List.of(Limit.of(1, 10)), manual::nanoTime);
    Throttle throttle = Throttle.builder(bucket).timeSource(manual).observationRegistry(observations)
        .maxWait(Duration.ofSeconds(5)).build();
    throttle.exchange("GET", "/pix/1", null, OK); // the one token
    Observation client = Observation.start("http.client.requests", observations);
    AsyncBooking waiting = throttle.book(ThrottleRequest.of("GET", "/pix/2"), client);
    CompletableFuture<IOException> failed = new CompletableFuture<>();
    waiting.start(slot -> failed.complete(null), failed::complete);
    assertThat(manual.scheduledTasks()).as("booked: its slot 100 ms away").isEqualTo(1);
    assertThat(waiting.cancel()).as("cancelled while waiting").isTrue();
    assertThat(failed.get(5, TimeUnit.SECONDS)).isNotNull();
    assertThat(stopped).as("both ended, the cancelled one with its cancel, while its parent still runs").hasValue(2);
    client.stop();
    TestObservationRegistryAssert.assertThat(observations)
        .hasAnObservation(o -> o.hasLowCardinalityKeyValue("outcome", "cancelled").doesNotHaveError()
            .hasParentObservationEqualTo(client));
  }
}
