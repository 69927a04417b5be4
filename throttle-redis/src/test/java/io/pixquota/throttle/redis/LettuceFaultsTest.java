package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.AbstractRedisClient;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The faults the Redisson store is tested against, on Lettuce: an emptied script cache (SCRIPT FLUSH) under single
 * calls and under pipelined bookings, a Redis that stops answering (paused) and one that is restarted empty.
 */
class LettuceFaultsTest {
  private static final Duration LONG = Duration.ofSeconds(1000);

  @Test
  void recoversFromNoScriptAfterScriptFlush() throws Exception {
    FakeTime time = FakeTime.manual(1_700_000_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      RedisTokenBucket bucket = RedisTokenBucket.create(redis.lettuceStore(), TokenBucketConfig.custom("flush")
          .keyPrefix("lf:").clientClock(time.clock()).limit(3, 0.001).build(), time);
      assertThat(bucket.acquire(1, Duration.ZERO).remaining()).isCloseTo(2, within(0.01));
      assertThat(redis.admin.call("SCRIPT", "FLUSH")).isEqualTo("OK");
      long noScriptBefore = LuaScript.TOKEN_BUCKET.noScriptCount();
      Acquisition after = bucket.acquire(1, Duration.ZERO);
      assertThat(after.granted()).isTrue();
      assertThat(after.remaining()).isCloseTo(1, within(0.01));
      assertThat(LuaScript.TOKEN_BUCKET.noScriptCount() - noScriptBefore).as("NOSCRIPT met once").isEqualTo(1);
      assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("cached again by the EVAL")
          .isCloseTo(0, within(0.01));
      assertThat(LuaScript.TOKEN_BUCKET.noScriptCount() - noScriptBefore).isEqualTo(1);
      assertThat(bucket.scriptLoaded()).isTrue();
    }
  }

  @Test
  void pipelinedSlotsFollowTheOrderAskedAcrossAnEmptiedScriptCache() throws Exception {
    FakeTime time = FakeTime.manual(1_700_000_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      RedisTokenBucket bucket = RedisTokenBucket.create(redis.lettuceStore(), TokenBucketConfig.custom("order")
          .keyPrefix("lf:").clientClock(time.clock()).limit(3, 10).build(), time);
      long noScriptBefore = LuaScript.TOKEN_BUCKET.noScriptCount();
      int n = 3 * OrderedBookings.MAX_BATCH + 50;
      List<CompletableFuture<Acquisition>> asked = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (i == n / 2) {
          assertThat(redis.admin.call("SCRIPT", "FLUSH")).isEqualTo("OK");
        }
        asked.add(bucket.acquireAsync(1, LONG));
      }
      for (int i = 0; i < n; i++) {
        Acquisition a = asked.get(i).get(10, TimeUnit.SECONDS);
        assertThat(a.granted()).as("booking %d", i).isTrue();
        assertThat(a.waitTime().toNanos() / 1000).as("booking %d: its place in the order asked", i)
            .isCloseTo(i < 3 ? 0 : (i - 2) * 100_000L, within(2L));
      }
      assertThat(LuaScript.TOKEN_BUCKET.noScriptCount()).as("NOSCRIPT met on the way").isGreaterThan(noScriptBefore);
      assertThat(bucket.acquireAsync(1, Duration.ZERO).get(10, TimeUnit.SECONDS).granted()).isFalse();
    }
  }

  @Test
  void aSilentRedisFailsEveryQueuedBookingInTimeAndTheLineGoesOnAfter() throws Exception {
    try (PrivateRedisServer server = PrivateRedisServer.start()) {
      AbstractRedisClient client = RedisAddress.parse(server.uri().toString()).connectLettuce(Duration.ofSeconds(2));
      try (RespConnection admin = server.rawConnection()) {
        RedisTokenBucket bucket = RedisTokenBucket.create(LettuceStore.of(client), TokenBucketConfig
            .custom("silent").keyPrefix("lf:").limit(1000, 1000).redisTimeout(Duration.ofMillis(300)).build());
        bucket.preload(); // connected, within 10 s: a cold JVM's first Lettuce call takes longer than 300 ms
        bucket.acquire(1, Duration.ZERO);
        List<CompletableFuture<Acquisition>> asked = new ArrayList<>();
        server.pause();
        long start = System.nanoTime();
        try {
          for (int i = 0; i < 300; i++) {
            asked.add(bucket.acquireAsync(1, LONG));
          }
          for (CompletableFuture<Acquisition> a : asked) {
            assertThatThrownBy(() -> a.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(StoreUnavailableException.class);
          }
        } finally {
          server.resume();
        }
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMs).as("300 queued bookings, a batch at a time, each batch failing at the 300 ms timeout")
            .isLessThan(300L * (300 / OrderedBookings.MAX_BATCH + 2) + 2_000);
        assertThat(bucket.acquireAsync(1, LONG).get(10, TimeUnit.SECONDS).granted()).as("the line goes on").isTrue();
        assertThat(admin.call("PING")).isEqualTo("PONG");
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void aRestartedRedisFailsCallsAsPassingAndIsUsedAgainOnceBack() throws Exception {
    try (PrivateRedisServer server = PrivateRedisServer.start()) {
      AbstractRedisClient client = RedisAddress.parse(server.uri().toString()).connectLettuce(Duration.ofSeconds(1));
      try {
        RedisTokenBucket bucket = RedisTokenBucket.create(LettuceStore.of(client), TokenBucketConfig
            .custom("restart").keyPrefix("lf:").limit(5, 0.001).redisTimeout(Duration.ofMillis(500)).build());
        bucket.preload();
        assertThat(bucket.acquire(3, Duration.ZERO).granted()).isTrue();
        server.kill();
        assertThatThrownBy(() -> bucket.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class)
            .satisfies(e -> assertThat(((StoreUnavailableException) e).passing())
                .as("a restart may pass by itself").isTrue());
        server.restart(); // empty: no key, no script
        long noScriptBefore = LuaScript.TOKEN_BUCKET.noScriptCount();
        Acquisition again = firstAnswer(bucket);
        assertThat(again).as("answered again after the restart").isNotNull();
        assertThat(again.granted()).as("a full bucket again: the restarted node lost the state").isTrue();
        assertThat(again.remaining()).isCloseTo(4, within(0.01));
        assertThat(LuaScript.TOKEN_BUCKET.noScriptCount() - noScriptBefore).as("the script sent again").isEqualTo(1);
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void aRedisSilentAtStartFailsTheCallerInItsTimeoutWithoutBlockingItAndIsUsedOnceItAnswers() throws Exception {
    try (PrivateRedisServer server = PrivateRedisServer.start()) {
      AbstractRedisClient client = RedisAddress.parse(server.uri().toString()).connectLettuce(Duration.ofSeconds(1));
      try {
        RedisTokenBucket bucket = RedisTokenBucket.create(LettuceStore.of(client), TokenBucketConfig
            .custom("silent-start").keyPrefix("lf:").limit(5, 0.001).redisTimeout(Duration.ofMillis(300)).build());
        server.pause(); // accepts TCP, answers nothing: the client's first connect hangs in its handshake
        try {
          long start = System.nanoTime();
          CompletableFuture<Acquisition> async = bucket.acquireAsync(1, Duration.ZERO);
          assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the async caller is not blocked")
              .isLessThan(Duration.ofMillis(100));
          assertThatThrownBy(() -> bucket.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class);
          assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the blocking caller waits its timeout only")
              .isLessThan(Duration.ofMillis(900));
          assertThatThrownBy(() -> async.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(StoreUnavailableException.class);
        } finally {
          server.resume();
        }
        Acquisition served = firstAnswer(bucket);
        assertThat(served).as("served once Redis answers").isNotNull();
        assertThat(served.remaining()).as("nothing booked for the callers that gave up").isCloseTo(4, within(0.01));
      } finally {
        client.shutdown();
      }
    }
  }

  /** The first answer of {@code bucket} within 20 s, asked every 100 ms while Lettuce reconnects; or null. */
  private static Acquisition firstAnswer(RedisTokenBucket bucket) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      try {
        return bucket.acquire(1, Duration.ZERO);
      } catch (StoreUnavailableException e) {
        Thread.sleep(100);
      }
    }
    return null;
  }
}
