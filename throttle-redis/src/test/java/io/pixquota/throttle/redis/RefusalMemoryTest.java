package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Acquisition;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A refusal this process knows is answered from memory ({@link RefusalMemory}): a storm of calls that retry at once
 * costs the shared Redis one script run a flow every 100 ms, not one a call; and the memory never outlives what can
 * bring a slot sooner (a refund of its own, a configuration cleared) nor its 100 ms. The bucket decides on Redis's
 * clock; the memory's age is read on a clock the test moves.
 */
@ExtendWith(RedisExtension.class)
class RefusalMemoryTest {
  private final FakeTime time = FakeTime.manual(1_000);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private RedisTokenBucket bucket(TestRedis redis, String name, Map<String, Double> shares) {
    RedisTokenBucket b = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()), TokenBucketConfig.custom(name)
        .keyPrefix(redis.keyPrefix()).limit(3, 0.01).shares(shares).build(), time);
    b.bindTo(registry);
    return b;
  }

  private double remembered() {
    return registry.get("bacen.throttle.refused.remembered").functionCounter().count();
  }

  @Test
  void aStormOfRefusedCallsAsksTheScriptOnceEvery100msAndRefusesTheRestFromMemory(TestRedis redis)
      throws Exception {
    RedisTokenBucket b = bucket(redis, "storm", null);
    for (int i = 0; i < 3; i++) {
      assertThat(b.acquire(1, Duration.ZERO).granted()).isTrue();
    }
    Acquisition first = b.acquire(1, Duration.ofSeconds(10)); // the next token is 100 s away: refused by the script
    assertThat(first.granted()).isFalse();
    for (int i = 0; i < 1_000; i++) {
      Acquisition a = i % 2 == 0 ? b.acquire(1, Duration.ofSeconds(10))
          : b.acquireAsync(1, Duration.ofSeconds(10)).get();
      assertThat(a.granted()).isFalse();
      assertThat(a.waitTime()).as("the wait the script said, less what has passed").isGreaterThan(Duration
          .ofSeconds(90));
    }
    assertThat(remembered()).as("1,000 refusals, no script run").isEqualTo(1_000);
    assertThat(b.acquire(1, Duration.ofDays(1)).granted()).as("a call that can wait that long asks the script")
        .isTrue();
    assertThat(remembered()).isEqualTo(1_000);
    time.advanceMillis(101);
    assertThat(b.acquire(1, Duration.ofSeconds(10)).granted()).isFalse();
    assertThat(remembered()).as("100 ms later, the next call asks the script again").isEqualTo(1_000);
    assertThat(b.acquire(1, Duration.ofSeconds(10)).granted()).isFalse();
    assertThat(remembered()).isEqualTo(1_001);
  }

  @Test
  void aRefundOrAClearedConfigurationBringsTheNextCallToTheScript(TestRedis redis) throws Exception {
    RedisTokenBucket b = bucket(redis, "refund", null);
    for (int i = 0; i < 3; i++) {
      b.acquire(1, Duration.ZERO);
    }
    assertThat(b.acquire(1, Duration.ZERO).granted()).isFalse();
    assertThat(b.acquire(1, Duration.ZERO).granted()).isFalse();
    assertThat(remembered()).isEqualTo(1);
    b.refund(1); // a call of this process given up: its token back
    assertThat(b.acquire(1, Duration.ZERO).granted()).as("asked, and granted on the token given back").isTrue();
    assertThat(remembered()).isEqualTo(1);
    assertThat(b.acquire(1, Duration.ZERO).granted()).isFalse();
    assertThat(b.acquire(1, Duration.ZERO).granted()).isFalse();
    assertThat(remembered()).isEqualTo(2);
    b.clearConfiguration("9.0:9.0"); // none such: an operator's act all the same
    assertThat(b.acquire(1, Duration.ZERO).granted()).isFalse();
    assertThat(remembered()).as("asked the script after the operator's act").isEqualTo(2);
  }

  @Test
  void eachFlowRemembersItsOwnRefusalOnly(TestRedis redis) throws Exception {
    RedisTokenBucket b = bucket(redis, "flows", Map.of("checkout", 2.0, "batch", 1.0, "*", 0.0));
    RedisTokenBucket batch = b.forFlow("batch");
    RedisTokenBucket checkout = b.forFlow("checkout");
    while (batch.acquire(1, Duration.ZERO).granted()) {
      // the batch flow's share, and what it may borrow now
    }
    assertThat(batch.acquire(1, Duration.ZERO).granted()).isFalse();
    double before = remembered();
    assertThat(before).isPositive();
    assertThat(checkout.acquire(1, Duration.ofDays(1)).granted()).as("another flow asks the script").isTrue();
    assertThat(remembered()).isEqualTo(before);
  }

  /**
   * Each refusal answered from memory yields the caller's thread once (callers that retry at once must not keep the
   * threads their process woke off the CPU); a call the script decides does not.
   */
  @Test
  void aRefusalFromMemoryYieldsItsThreadOnceAndACallForTheScriptDoesNot() {
    java.util.concurrent.atomic.AtomicInteger pauses = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.LongAdder answered = new java.util.concurrent.atomic.LongAdder();
    RefusalMemory memory = new RefusalMemory(time::nanoTime, () -> 0, answered, true, pauses::incrementAndGet);
    long now = time.nanoTime();
    assertThat(memory.refusal(1, Duration.ofSeconds(10).toNanos())).as("nothing known: the script decides").isNull();
    memory.answered(1, Acquisition.of(false, Duration.ofSeconds(100), -1, 0, now));
    for (int i = 0; i < 5; i++) {
      assertThat(memory.refusal(1, Duration.ofSeconds(10).toNanos()).granted()).isFalse();
    }
    assertThat(memory.refusal(1, Duration.ofSeconds(200).toNanos())).as("a wait that reaches the slot").isNull();
    assertThat(pauses.get()).as("one yield a refusal from memory").isEqualTo(5);
    assertThat(answered.sum()).isEqualTo(5);
  }
}
