package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Acquisition;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.PermitPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fleet whose processes run on different clients: a bucket, a group and a pool used at once through Lettuce and
 * through Redisson, from many threads each, admit together exactly what the bucket's math allows (the same scripts on
 * the same keys, whichever client sends them). The buckets decide on the test's clock (client-clock mode), so every
 * figure is exact; the group and the pool refill too slowly to add a token while the test runs.
 */
class MixedClientsFleetTest {
  private static final int THREADS_PER_CLIENT = 8;
  private static final FakeTime TIME = FakeTime.manual(1_700_000_000);
  private static RedisOnFakeTime redis;
  private static ExecutorService threads;

  @BeforeAll
  static void start() {
    redis = new RedisOnFakeTime(TIME);
    threads = Executors.newFixedThreadPool(2 * THREADS_PER_CLIENT);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    threads.shutdownNow();
    threads.awaitTermination(10, TimeUnit.SECONDS);
    redis.close();
  }

  /** Runs {@code attempt} from every thread until it refuses; how many it admitted through each client. */
  private static int[] admittedUntilRefused(Callable<Boolean> lettuce, Callable<Boolean> redisson) throws Exception {
    List<Future<Integer>> counts = new ArrayList<>();
    for (int i = 0; i < 2 * THREADS_PER_CLIENT; i++) {
      Callable<Boolean> attempt = i % 2 == 0 ? lettuce : redisson;
      counts.add(threads.submit(() -> {
        int admitted = 0;
        while (attempt.call()) {
          admitted++;
        }
        return admitted;
      }));
    }
    int[] byClient = new int[2];
    for (int i = 0; i < counts.size(); i++) {
      byClient[i % 2] += counts.get(i).get(30, TimeUnit.SECONDS);
    }
    return byClient;
  }

  @Test
  void aBucketSharedByLettuceAndRedissonAdmitsItsBurstThenItsRateExactly() throws Exception {
    TokenBucketConfig config = TokenBucketConfig.custom("mixed").keyPrefix("mix:").clientClock(TIME.clock())
        .limit(200, 50).build();
    RedisTokenBucket onLettuce = RedisTokenBucket.create(redis.lettuceStore(), config, TIME);
    RedisTokenBucket onRedisson = RedisTokenBucket.create(redis.redissonStore(), config, TIME);
    onLettuce.preload(); // both clients connected before the race
    onRedisson.preload();
    int[] burst = admittedUntilRefused(() -> onLettuce.acquire(1, Duration.ZERO).granted(),
        () -> onRedisson.acquire(1, Duration.ZERO).granted());
    assertThat(burst[0] + burst[1]).as("the capacity, no more, through both clients").isEqualTo(200);
    assertThat(burst[0]).as("Lettuce took part").isPositive();
    assertThat(burst[1]).as("Redisson took part").isPositive();
    TIME.advance(Duration.ofSeconds(2));
    int[] refill = admittedUntilRefused(() -> onLettuce.acquire(1, Duration.ZERO).granted(),
        () -> onRedisson.acquire(1, Duration.ZERO).granted());
    assertThat(refill[0] + refill[1]).as("2 s at 50 per second").isEqualTo(100);
    TIME.advance(Duration.ofMillis(500));
    List<CompletableFuture<Acquisition>> booked = new ArrayList<>();
    for (int i = 0; i < 40; i++) { // async bookings, pipelined by each client: 25 now, the rest in line
      booked.add((i % 2 == 0 ? onLettuce : onRedisson).acquireAsync(1, Duration.ofMillis(290))
          .toCompletableFuture());
    }
    int now = 0;
    int later = 0;
    for (var b : booked) {
      var a = b.get(10, TimeUnit.SECONDS);
      if (a.granted() && a.waitTime().isZero()) {
        now++;
      } else if (a.granted()) {
        later++;
        assertThat(a.waitTime()).isLessThanOrEqualTo(Duration.ofMillis(290));
      }
    }
    assertThat(now).as("0.5 s at 50 per second, at once").isEqualTo(25);
    assertThat(later).as("290 ms more of slots booked ahead, one each 20 ms: 14, the rest refused").isEqualTo(14);
  }

  @Test
  void aGroupSharedByLettuceAndRedissonAdmitsItsCapacityExactly() throws Exception {
    RedisBucketGroup onLettuce = RedisBucketGroup.create(redis.lettuceStore(), "mixed-group", "mix:",
        Duration.ofSeconds(5));
    RedisBucketGroup onRedisson = RedisBucketGroup.create(redis.redissonStore(), "mixed-group", "mix:",
        Duration.ofSeconds(5));
    BucketGroup.GroupBucket user = new BucketGroup.GroupBucket("u:someone", Limit.of(120, 1 / 3600.0));
    BucketGroup.GroupBucket psp = new BucketGroup.GroupBucket("psp", Limit.of(90, 1 / 3600.0));
    List<BucketGroup.Take> takes = List.of(new BucketGroup.Take(user, 1, 1, false),
        new BucketGroup.Take(psp, 1, 1, false));
    int[] admitted = admittedUntilRefused(
        () -> onLettuce.acquire(takes, Duration.ZERO, List.of(), List.of()).granted(),
        () -> onRedisson.acquire(takes, Duration.ZERO, List.of(), List.of()).granted());
    assertThat(admitted[0] + admitted[1]).as("the smaller bucket's capacity, through both clients").isEqualTo(90);
    assertThat(admitted[0]).isPositive();
    assertThat(admitted[1]).isPositive();
    List<BucketGroup.Take> userOnly = List.of(new BucketGroup.Take(user, 1, 1, false));
    int[] rest = admittedUntilRefused(
        () -> onLettuce.acquire(userOnly, Duration.ZERO, List.of(), List.of()).granted(),
        () -> onRedisson.acquire(userOnly, Duration.ZERO, List.of(), List.of()).granted());
    assertThat(rest[0] + rest[1]).as("what the larger bucket had left").isEqualTo(120 - 90);
  }

  @Test
  void aPoolSharedByLettuceAndRedissonHoldsItsCapacityAndHearsReleasesAcrossClients() throws Exception {
    RedisPermitPool onLettuce = RedisPermitPool.create(redis.lettuceStore(), "mixed-pool", 12,
        Duration.ofSeconds(60), "mix:", TIME);
    RedisPermitPool onRedisson = RedisPermitPool.create(redis.redissonStore(), "mixed-pool", 12,
        Duration.ofSeconds(60), "mix:", TIME);
    onLettuce.preload(); // subscribed to the pool's channels: the test's clock never moves the waiters' timers
    onRedisson.preload();
    List<PermitPool.Permit> held = java.util.Collections.synchronizedList(new ArrayList<>());
    int[] taken = admittedUntilRefused(() -> take(onLettuce, held), () -> take(onRedisson, held));
    assertThat(taken[0] + taken[1]).as("the pool's capacity, through both clients").isEqualTo(12);
    assertThat(held).hasSize(12);
    PermitPool.Waiter waiter = PermitPool.Waiter.of(0, Duration.ofSeconds(20));
    assertThat(onLettuce.take(waiter, null).ahead()).as("a Lettuce waiter in line").isEqualTo(1);
    var turn = onLettuce.turn(waiter, Duration.ofSeconds(20)).toCompletableFuture();
    PermitPool.Permit first = held.remove(0);
    onRedisson.release(first).toCompletableFuture().get(5, TimeUnit.SECONDS);
    turn.get(5, TimeUnit.SECONDS); // a release through Redisson wakes the waiter of the Lettuce client
    PermitPool.PermitAnswer granted = onLettuce.take(waiter, null);
    assertThat(granted.permit()).as("its permit, the one released").isNotNull();
    held.add(granted.permit());
    assertThat(take(onRedisson, held)).as("still full").isFalse();
    for (PermitPool.Permit p : held) {
      onLettuce.release(p).toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
  }

  private static boolean take(RedisPermitPool pool, List<PermitPool.Permit> held) throws Exception {
    PermitPool.Waiter waiter = PermitPool.Waiter.of(0);
    PermitPool.PermitAnswer a = pool.take(waiter, null);
    if (a.permit() == null) {
      pool.leave(waiter);
      return false;
    }
    held.add(a.permit());
    return true;
  }
}
