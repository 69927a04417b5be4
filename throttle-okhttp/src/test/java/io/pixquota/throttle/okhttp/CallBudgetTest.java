package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import okio.Timeout;
import org.junit.jupiter.api.Test;

/** What a call's timeout leaves across its bookings, and how many more it may make for OkHttp's retries. */
class CallBudgetTest {
  @Test
  void aCallBooksAgainAtMostTwiceEachTimeWithWhatItsTimeoutLeft() {
    Timeout timeout = new Timeout();
    AtomicLong now = new AtomicLong(5_000_000_000L);
    CallBudget budget = new CallBudget(timeout, now::get);
    assertThat(budget.timed()).isFalse();
    assertThat(budget.maxWait()).as("no timeout, no max wait of its own").isNull();
    timeout.timeout(10, TimeUnit.SECONDS); // set by the caller before the call starts
    budget.start();
    assertThat(budget.maxWait()).isEqualTo(Duration.ofSeconds(10));
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(300)); // the first attempt: its wait, its send, the failure
    assertThat(budget.retry()).isTrue();
    assertThat(budget.maxWait()).isEqualTo(Duration.ofMillis(9_700));
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200));
    assertThat(budget.retry()).isTrue();
    assertThat(budget.maxWait()).isEqualTo(Duration.ofMillis(9_500));
    assertThat(budget.retry()).as("a third retry: the call fails with what OkHttp retried").isFalse();
  }

  @Test
  void aRetryThatFindsTheTimeoutSpentWaitsForNothing() {
    Timeout timeout = new Timeout().timeout(1, TimeUnit.MILLISECONDS);
    AtomicLong now = new AtomicLong();
    CallBudget budget = new CallBudget(timeout, now::get);
    budget.start();
    now.addAndGet(TimeUnit.MILLISECONDS.toNanos(5));
    assertThat(budget.retry()).isTrue();
    assertThat(budget.maxWait()).isEqualTo(Duration.ZERO);
  }

  @Test
  void theFailureOkHttpRetriedIsWhatTheCallFailsWith() {
    TransportRetryException retry = new TransportRetryException();
    assertThat(retry.retried()).as("none recorded").isSameAs(retry);
    IOException lost = new IOException("unexpected end of stream");
    retry.addSuppressed(lost); // as OkHttp adds the failures it recovered from
    assertThat(retry.retried()).isSameAs(lost);
  }
}
