package io.pixquota.throttle.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.PermitPool.PermitAnswer;
import io.pixquota.throttle.store.PermitPool.Waiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The in-memory pool's line on a clock the test moves: a long wait keeps its place. */
class LocalPermitPoolTest {
  private final FakeTime time = FakeTime.manual(1_000);

  @Test
  void aWaiterThatWaitsLongerThanItsWaiterLeaseIsToldToAskAgainAndKeepsItsPlace() throws Exception {
    LocalPermitPool pool = new LocalPermitPool("spi", 1, Duration.ofSeconds(60), time);
    Waiter first = Waiter.of(0);
    Waiter second = Waiter.of(0);
    PermitAnswer holder = pool.take(Waiter.of(0), null);
    assertThat(pool.take(first, null).ahead()).isEqualTo(1);
    for (int s = 0; s < 20; s++) { // 20 x 1.5 s in line: far past the 3 s waiter lease
      CompletableFuture<Void> turn = pool.turn(first, Duration.ofSeconds(30)).toCompletableFuture();
      time.advance(LocalPermitPool.WAITER_LEASE.dividedBy(2));
      assertThat(turn).as("told to ask again within half its waiter lease, not at its max wait").isDone();
      assertThat(pool.take(first, null).ahead()).as("asking again keeps its place").isEqualTo(1);
      if (s == 0) {
        assertThat(pool.take(second, null).ahead()).isEqualTo(2);
      }
      assertThat(pool.take(second, null).ahead()).isEqualTo(2);
    }
    CompletableFuture<Void> turn = pool.turn(first, Duration.ofSeconds(30)).toCompletableFuture();
    assertThat(pool.release(holder.permit()).toCompletableFuture().get()).isTrue();
    assertThat(turn).as("woken by the release").isDone();
    assertThat(pool.take(second, null).ahead()).as("still behind the first").isEqualTo(1);
    assertThat(pool.take(first, null).permit()).as("the first in line 30 s later").isNotNull();
  }
}
