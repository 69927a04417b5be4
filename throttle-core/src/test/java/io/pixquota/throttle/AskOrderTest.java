package io.pixquota.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalTokenBucket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A call's mark ({@link AskOrder}) reaches its bucket with its booking, through the local fallback's decorator that
 * every bucket is wrapped in: the store can then book the calls that reach it together in the order they were asked.
 */
class AskOrderTest {
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private final AskMarks bucket = new AskMarks(new LocalTokenBucket("pix", List.of(Limit.of(10, 1)), time::nanoTime));
  private final Throttle throttle = ThrottleTesting.builder(bucket, time).maxWait(Duration.ofSeconds(5)).build();

  private int call() throws Exception {
    return throttle.exchange(ThrottleRequest.of("GET", "/api/v2/pix/E1"), Answering.status(200));
  }

  @Test
  void aCallIsAskedAtItsCallersFirstMarkAndWithoutOneWhenItIsBooked() throws Exception {
    long outer;
    long before = System.nanoTime();
    try (AskOrder first = AskOrder.mark()) {
      outer = AskOrder.current();
      try (AskOrder inner = AskOrder.mark()) {
        assertThat(AskOrder.current()).as("a mark within another keeps the outer one").isEqualTo(outer);
        assertThat(call()).isEqualTo(200);
      }
      assertThat(call()).as("after the inner mark closed").isEqualTo(200);
    }
    long unmarked = System.nanoTime();
    assertThat(call()).isEqualTo(200);
    assertThat(outer).isBetween(before, unmarked);
    assertThat(bucket.asked()).hasSize(3);
    assertThat(bucket.asked().subList(0, 2)).as("both calls made under the mark, whatever came between")
        .containsExactly(outer, outer);
    assertThat(bucket.asked().get(2)).as("no mark left: asked when it was booked").isGreaterThanOrEqualTo(unmarked);
  }

  @Test
  void aMarkIsItsThreadsAlone() throws Exception {
    try (AskOrder mine = AskOrder.mark()) {
      long[] other = new long[1];
      long before = System.nanoTime();
      Thread t = new Thread(() -> other[0] = AskOrder.current());
      t.start();
      t.join();
      assertThat(other[0]).as("another thread is asked at its own time").isGreaterThanOrEqualTo(before);
      assertThat(AskOrder.current()).isLessThanOrEqualTo(before);
    }
  }
}
