package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.PermitPool.PermitAnswer;
import io.pixquota.throttle.store.PermitPool.SlotAsk;
import io.pixquota.throttle.store.PermitPool.Waiter;
import io.pixquota.throttle.Priority;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The Redis permit pool's own promises beyond {@code PermitPoolContract} (which RedisPermitPoolContractTest runs: the
 * cap, the line, leases that end, the fencing of a late release), on a private Redis whose clock (and key expiry)
 * follow the test's: reclaims counted by any step, services with other capacities and leases on one pool, a key of
 * the wrong type, distrust of a stored lease, and a permit and a rate slot decided in one script.
 */
class RedisPermitPoolTest {
  private static final FakeTime TIME = FakeTime.manual(80_000);
  private static RedisOnFakeTime redis;
  private static int run;
  private String prefix;

  @BeforeAll
  static void start() {
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @BeforeEach
  void fresh() {
    prefix = "pp" + (++run) + ":";
  }

  private RedisPermitPool pool(int capacity, Duration lease) {
    return RedisPermitPool.create(RedissonStore.of(redis.redisson), "spi", capacity, lease, prefix, TIME);
  }

  private static Waiter w(String id) {
    return new Waiter(id, Priority.INTERACTIVE.ordinal());
  }

  @Test
  void leasesTakenBackByAReleaseOrALeaveAreCountedToo() throws Exception {
    RedisPermitPool pool = pool(3, Duration.ofSeconds(2));
    pool.take(w("dead1"), null);
    pool.take(w("dead2"), null);
    PermitAnswer live = pool.take(w("live"), null);
    TIME.advance(Duration.ofMillis(2_001)); // the two dead holders' leases end; live's too, but it releases
    assertThat(pool.release(live.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).isFalse();
    assertThat(pool.readings().expiredLeases()).as("all three reclaimed by the release's own step").isEqualTo(3);
    assertThat(pool.readings().inUse()).isZero();
  }

  @Test
  void servicesWithOtherCapacitiesAndLeasesShareOnePoolAtTheSmallestCapacityAndKeepEachOthersPermits()
      throws Exception {
    RedisPermitPool longCalls = pool(6, Duration.ofSeconds(45)); // PixClient's defaults
    RedisPermitPool shortCalls = pool(4, Duration.ofSeconds(12)); // max wait 2 s, call timeout 5 s
    for (int i = 0; i < 3; i++) {
      assertThat(longCalls.take(w("long" + i), null).permit()).isNotNull();
    }
    assertThat(shortCalls.take(w("short0"), null).permit()).isNotNull();
    assertThat(shortCalls.readings().capacityInForce()).as("the smallest any live service asks for").isEqualTo(4);
    PermitAnswer fifth = longCalls.take(w("long3"), null);
    assertThat(fifth.permit()).as("4 held: the long-lease service is held to 4 too").isNull();
    assertThat(longCalls.readings().capacityInForce()).isEqualTo(4);
    TIME.advance(Duration.ofSeconds(25)); // past twice the short lease: the long-lease permits are still believed
    PermitAnswer again = shortCalls.take(w("short1"), null);
    assertThat(again.expired()).as("short0's own lease ended; none of the long-lease permits taken back")
        .isEqualTo(1);
    assertThat(again.permit()).as("3 long-lease permits held, 4 in force: one free").isNotNull();
    assertThat(shortCalls.take(w("short2"), null).permit()).as("4 in use").isNull();
    shortCalls.close();
    Awaits.value("the short service's configuration taken out", Duration.ofSeconds(5), () -> {
      if (longCalls.take(w("long3"), null).permit() == null) {
        throw new IllegalStateException("still held to 4");
      }
      return null;
    });
    assertThat(longCalls.readings().capacityInForce()).as("its own again").isEqualTo(6);
  }

  @Test
  void aKeyOfTheWrongTypeIsReplacedAndThePoolServes() throws Exception {
    RedisPermitPool pool = pool(1, Duration.ofSeconds(30));
    redis.admin.call("SET", (String) pool.keys().get(0), "not a sorted set");
    redis.admin.call("RPUSH", (String) pool.keys().get(4), "not a hash");
    redis.admin.call("SET", (String) pool.keys().get(5), "not a sorted set");
    PermitAnswer a = pool.take(w("a"), null);
    assertThat(a.permit()).as("healed at the first call").isNotNull();
    assertThat(redis.admin.call("TYPE", (String) pool.keys().get(0))).isEqualTo("zset");
    assertThat(redis.admin.call("TYPE", (String) pool.keys().get(5))).as("the takes' times").isEqualTo("zset");
    assertThat(pool.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aWaiterThatLeavesGivesBackAPermitItWasGivenInAnAnswerItNeverRead() throws Exception {
    RedisPermitPool pool = pool(1, Duration.ofSeconds(60));
    assertThat(pool.take(w("lost"), null).permit()).as("granted; say its answer timed out on the way").isNotNull();
    assertThat(pool.take(w("b"), null).ahead()).isEqualTo(1);
    pool.leave(w("lost")); // what a caller does when its take failed (sent without waiting for the answer)
    Awaits.value("the unseen permit given back, not held for its 60 s lease", Duration.ofSeconds(5), () -> {
      if (pool.take(w("b"), null).permit() == null) {
        throw new IllegalStateException("b still in line"); // asked again until the leave has landed
      }
      return null;
    });
  }

  @Test
  void aStoredLeaseFarAheadIsNotBelievedAndAWaiterThatStopsAskingLosesItsPlace() throws Exception {
    RedisPermitPool pool = pool(1, Duration.ofSeconds(2));
    redis.admin.call("ZADD", (String) pool.keys().get(0), Long.toString(TIME.micros() / 1000 + 86_400_000), "ghost");
    PermitAnswer a = pool.take(w("a"), null);
    assertThat(a.permit()).as("a lease of a day, against the pool's 2 s: reclaimed").isNotNull();
    assertThat(a.expired()).isEqualTo(1);
    assertThat(pool.take(w("gone"), null).ahead()).isEqualTo(1);
    assertThat(pool.take(w("b"), null).ahead()).isEqualTo(2);
    TIME.advance(RedisPermitPool.WAITER_LEASE.plusMillis(1)); // "gone" never asks again; b does; a's lease ends
    assertThat(pool.take(w("b"), null).permit()).as("a's lease over, gone's place lost: b's turn").isNotNull();
  }

  @Test
  void beside_aBucket_aPermitAndASlotAreOneScriptBothOrNeither() throws Exception {
    RedisTokenBucket bucket = RedisTesting.onFakeTime(redis.redisson, prefix, "spi", 2, 0.5, TIME);
    RedisPermitPool pool = RedisPermitPool.beside(bucket, "spi", 3, Duration.ofSeconds(30));
    PermitAnswer one = pool.take(w("a"), new SlotAsk(bucket, 1, Duration.ZERO)); // the script cached by this one
    assertThat(one.permit()).isNotNull();
    assertThat(one.acquisition().granted()).isTrue();
    long scripts = scripts();
    assertThat(pool.take(w("b"), new SlotAsk(bucket, 1, Duration.ZERO)).acquisition().granted()).isTrue();
    assertThat(scripts() - scripts).as("one round trip for the permit and the slot").isEqualTo(1);
    PermitAnswer third = pool.take(w("c"), new SlotAsk(bucket, 1, Duration.ZERO));
    assertThat(third.acquisition().granted()).as("the bucket is empty: refused").isFalse();
    assertThat(third.permit()).as("both or neither: no permit").isNull();
    assertThat(third.inUse()).isEqualTo(2);
    pool.release(one.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    pool.take(w("x"), null);
    pool.take(w("y"), null);
    PermitAnswer full = pool.take(w("z"), new SlotAsk(bucket, 1, Duration.ofSeconds(10)));
    assertThat(full.ahead()).as("the pool full: it waits").isEqualTo(1);
    assertThat(full.acquisition()).as("and the bucket was not asked").isNull();
    assertThat(bucket.acquire(1, Duration.ofSeconds(10)).waitTime()).as("nothing booked for z: the next slot is "
        + "the bucket's first").isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aReleaseGrantsTheHeadOfTheLineItsPermitAndSlotAndItsTakeNeedsNoRoundTrip() throws Exception {
    RedisTokenBucket bucket = RedisTesting.onFakeTime(redis.redisson, prefix, "spi", 2, 0.5, TIME);
    RedisPermitPool pool = RedisPermitPool.beside(bucket, "spi", 1, Duration.ofSeconds(30));
    pool.preload(); // subscribed to the pool's channel
    PermitAnswer a = pool.take(w("a"), new SlotAsk(bucket, 1, Duration.ZERO));
    Waiter b = new Waiter("b", Priority.INTERACTIVE.ordinal(), Duration.ofSeconds(10));
    SlotAsk slot = new SlotAsk(bucket, 1, Duration.ofSeconds(10));
    assertThat(pool.take(b, slot).ahead()).isEqualTo(1);
    CompletableFuture<Void> turn = pool.turn(b, Duration.ofSeconds(10)).toCompletableFuture();
    pool.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    turn.get(5, TimeUnit.SECONDS); // its timer runs on the test's clock, which stands still: the grant's news
    long scripts = scripts();
    PermitAnswer granted = pool.take(b, slot);
    assertThat(scripts() - scripts).as("answered from the grant the release published").isZero();
    assertThat(granted.permit()).isNotNull();
    assertThat(granted.acquisition().granted()).as("its slot booked with the permit").isTrue();
    assertThat(granted.acquisition().waitTime()).as("the bucket's second token").isEqualTo(Duration.ZERO);
    assertThat(redis.admin.call("ZSCORE", (String) pool.keys().get(0), "b")).as("held in Redis").isNotNull();
    assertThat(bucket.acquire(1, Duration.ofSeconds(10)).waitTime()).as("b's token taken: the next is 2 s away")
        .isEqualTo(Duration.ofSeconds(2));
    pool.release(granted.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(redis.admin.call("EXISTS", (String) pool.keys().get(7))).as("no grant kept past its release")
        .isEqualTo(0L);
  }

  @Test
  void aReleaseTellsAWaiterOfItsOwnProcessOfItsGrantInItsReplyWithoutTheChannel() throws Exception {
    RedisTokenBucket bucket = RedisTesting.onFakeTime(redis.redisson, prefix, "spi", 2, 0.5, TIME);
    RedisPermitPool pool = RedisPermitPool.beside(bucket, "spi", 1, Duration.ofSeconds(30)); // never subscribes
    PermitAnswer a = pool.take(w("a"), new SlotAsk(bucket, 1, Duration.ZERO));
    Waiter b = new Waiter("b", Priority.INTERACTIVE.ordinal(), Duration.ofSeconds(10));
    SlotAsk slot = new SlotAsk(bucket, 1, Duration.ofSeconds(10));
    assertThat(pool.take(b, slot).ahead()).isEqualTo(1);
    pool.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(pool.turn(b, Duration.ofSeconds(10)).toCompletableFuture().isDone())
        .as("its turn, known from the release's reply").isTrue();
    long scripts = scripts();
    PermitAnswer granted = pool.take(b, slot);
    assertThat(scripts() - scripts).as("answered from the grant in the release's reply").isZero();
    assertThat(granted.permit()).isNotNull();
    assertThat(granted.acquisition().waitTime()).as("the bucket's second token").isEqualTo(Duration.ZERO);
    assertThat(redis.admin.call("ZSCORE", (String) pool.keys().get(0), "b")).as("held in Redis").isNotNull();
  }

  @Test
  void aGrantIsPublishedWhereTheWaitersProcessAloneListens() throws Exception {
    RedissonClient other = redis.newRedisson();
    RedissonClient watcher = redis.newRedisson();
    try {
      RedisPermitPool holder = pool(1, Duration.ofSeconds(30));
      RedisPermitPool waiting = RedisPermitPool.create(RedissonStore.of(other), "spi", 1, Duration.ofSeconds(30),
          prefix, TIME);
      holder.preload();
      waiting.preload();
      String channel = holder.keys().get(0) + ":turn";
      List<String> heard = new CopyOnWriteArrayList<>();
      CompletableFuture<Void> first = new CompletableFuture<>();
      watcher.getPatternTopic(channel + "*", StringCodec.INSTANCE).addListener(String.class, (p, c, m) -> {
        heard.add(c + " " + m.substring(0, m.indexOf(' ')));
        first.complete(null);
      });
      PermitAnswer a = holder.take(w("a"), null);
      assertThat(waiting.take(w("b"), null).ahead()).isEqualTo(1);
      CompletableFuture<Void> turn = waiting.turn(w("b"), Duration.ofSeconds(10)).toCompletableFuture();
      holder.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
      turn.get(5, TimeUnit.SECONDS);
      first.get(5, TimeUnit.SECONDS);
      assertThat(heard).as("one grant, on the channel of b's client, not the pool's").singleElement()
          .satisfies(h -> assertThat(h).startsWith(channel + ":").endsWith(" +b").doesNotStartWith(channel + " "));
      long scripts = scripts();
      assertThat(waiting.take(w("b"), null).permit()).isNotNull();
      assertThat(scripts() - scripts).as("its process kept the grant").isZero();
    } finally {
      other.shutdown();
      watcher.shutdown();
    }
  }

  @Test
  void aWaiterWhoseProcessMissedItsGrantGetsItFromItsNextTakeWithItsSlotWhileAheadElseANewSlot() throws Exception {
    RedisTokenBucket bucket = RedisTesting.onFakeTime(redis.redisson, prefix, "spi", 1, 0.5, TIME);
    RedisPermitPool holder = RedisPermitPool.beside(bucket, "spi", 1, Duration.ofSeconds(30));
    RedisPermitPool deaf = RedisPermitPool.beside(bucket, "spi", 1, Duration.ofSeconds(30)); // never subscribes
    SlotAsk slot = new SlotAsk(bucket, 1, Duration.ofSeconds(10));
    PermitAnswer a = holder.take(w("a"), new SlotAsk(bucket, 1, Duration.ZERO)); // the bucket's one token
    Waiter b = new Waiter("b", Priority.INTERACTIVE.ordinal(), Duration.ofSeconds(10));
    Waiter c = new Waiter("c", Priority.INTERACTIVE.ordinal(), Duration.ofSeconds(10));
    assertThat(deaf.take(b, slot).ahead()).isEqualTo(1);
    holder.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS); // b granted, slot 2 s away
    TIME.advance(Duration.ofMillis(500));
    PermitAnswer late = deaf.take(b, slot);
    assertThat(late.permit()).as("the grant, from the script").isNotNull();
    assertThat(late.acquisition().waitTime()).as("its slot, 1.5 s from now").isEqualTo(Duration.ofMillis(1500));
    deaf.release(late.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);

    PermitAnswer d = holder.take(w("d"), null);
    assertThat(deaf.take(c, slot).ahead()).isEqualTo(1);
    TIME.advance(Duration.ofMillis(1500)); // b's slot (2 s) is now
    holder.release(d.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS); // c granted the slot after b's
    TIME.advance(Duration.ofMillis(2500)); // c's slot passed unused while its process never heard
    PermitAnswer anew = deaf.take(c, slot);
    assertThat(anew.permit()).as("its permit, kept").isNotNull();
    assertThat(anew.acquisition().waitTime()).as("a new slot: the passed one is spent, never sent late")
        .isEqualTo(Duration.ofMillis(1500));
    assertThat(anew.inUse()).isEqualTo(1);
  }

  @Test
  void aWaiterWithoutAReadableAskIsToldItsTurnAsBeforeAndTakesItsPermit() throws Exception {
    RedisPermitPool pool = pool(1, Duration.ofSeconds(30));
    pool.preload();
    PermitAnswer a = pool.take(w("a"), null);
    assertThat(pool.take(w("old"), null).ahead()).isEqualTo(1);
    redis.admin.call("HSET", (String) pool.keys().get(6), "old", "an older release stores none; this is garbage");
    CompletableFuture<Void> turn = pool.turn(w("old"), Duration.ofSeconds(10)).toCompletableFuture();
    pool.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    turn.get(5, TimeUnit.SECONDS);
    assertThat(redis.admin.call("ZCARD", (String) pool.keys().get(0))).as("not granted: told").isEqualTo(0L);
    long scripts = scripts();
    assertThat(pool.take(w("old"), null).permit()).isNotNull();
    assertThat(scripts() - scripts).as("it asks again").isEqualTo(1);
  }

  private static long scripts() {
    return redis.admin.scriptCalls();
  }
}
