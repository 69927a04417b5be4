package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RespConnection;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.StoreUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * A process's async bookings of one bucket go to Redis in pipelines, in the order asked (within a batch, by when their
 * callers asked for them): the slots follow that order through a script cache emptied on the way (NOSCRIPT in the
 * middle of a batch), a booking given up before its batch leaves books nothing, and a Redis that stops answering
 * fails every queued booking within the timeout without stopping the ones asked once it is back.
 */
class OrderedBookingsTest {
  private static final Duration LONG = Duration.ofSeconds(1000);

  @Test
  void slotsFollowTheOrderAskedAcrossBatchesAndAnEmptiedScriptCache() throws Exception {
    FakeTime time = FakeTime.manual(1_700_000_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      RedisTokenBucket bucket = RedisTesting.onFakeTime(redis.redisson, "ob:", "order", 3, 10, time);
      long noScriptBefore = LuaScript.TOKEN_BUCKET.noScriptCount();
      int n = 3 * OrderedBookings.MAX_BATCH + 50;
      List<CompletableFuture<Acquisition>> asked = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (i == n / 2) {
          assertThat(redis.admin.call("SCRIPT", "FLUSH")).isEqualTo("OK"); // a restarted node's empty cache
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
  void aBatchIsBookedInTheOrderItsCallsWereAskedForNotTheOrderTheyArrivedIn() throws Exception {
    FakeTime time = FakeTime.manual(1_700_000_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      RedisTokenBucket bucket = RedisTesting.onFakeTime(redis.redisson, "ob:", "asked", 1, 10, time);
      bucket.acquire(1, Duration.ZERO); // the script loaded, the connection open, the burst spent
      CompletableFuture<Acquisition> alone;
      List<CompletableFuture<Acquisition>> batch = new ArrayList<>();
      redis.redis.server().pause(); // the first booking stays at Redis while the others queue behind it
      try {
        alone = bucket.acquireAsync(1, LONG, 2_000);
        for (int i = 0; i < 5; i++) {
          batch.add(bucket.acquireAsync(1, LONG, 1_000 - i)); // each asked for before the one that arrived before it
        }
      } finally {
        redis.redis.server().resume();
      }
      assertThat(alone.get(10, TimeUnit.SECONDS).waitTime().toNanos() / 1000).as("sent before the others arrived")
          .isCloseTo(100_000L, within(2L));
      for (int i = 0; i < 5; i++) {
        assertThat(batch.get(i).get(10, TimeUnit.SECONDS).waitTime().toNanos() / 1000)
            .as("arrived %d-th in its batch, asked for %d-th", i + 1, 5 - i).isCloseTo((6 - i) * 100_000L, within(2L));
      }
    }
  }

  @Test
  void aBookingGivenUpBeforeItsBatchLeavesBooksNothing() throws Exception {
    FakeTime time = FakeTime.manual(1_700_000_000);
    try (RedisOnFakeTime redis = new RedisOnFakeTime(time)) {
      RedisTokenBucket bucket = RedisTesting.onFakeTime(redis.redisson, "ob:", "given-up", 10, 1, time);
      bucket.acquire(1, Duration.ZERO); // the script loaded, the connection open
      List<CompletableFuture<Acquisition>> asked = new ArrayList<>();
      redis.redis.server().pause(); // the first booking stays at Redis while the others queue behind it
      try {
        for (int i = 0; i < 6; i++) {
          asked.add(bucket.acquireAsync(1, LONG));
        }
        for (int i = 1; i < 6; i += 2) {
          asked.get(i).cancel(false);
        }
      } finally {
        redis.redis.server().resume();
      }
      for (int i = 0; i < 6; i += 2) {
        assertThat(asked.get(i).get(10, TimeUnit.SECONDS).granted()).isTrue();
      }
      assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("10 - 1 - 3 booked - this one: nothing for the "
          + "three given up").isEqualTo(5.0);
    }
  }

  @Test
  void aSilentRedisFailsEveryQueuedBookingInTimeAndTheLineGoesOnAfter() throws Exception {
    try (PrivateRedisServer server = PrivateRedisServer.start()) {
      RedissonClient client = Redisson.create(TestRedis.redissonConfig(server.uri().toString()));
      try (RespConnection admin = server.rawConnection()) {
        RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(client),
            TokenBucketConfig.custom("silent").keyPrefix("ob:")
            .limit(1000, 1000).redisTimeout(Duration.ofMillis(300)).build());
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
}
