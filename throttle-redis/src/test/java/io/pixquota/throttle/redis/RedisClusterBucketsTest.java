package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.harness.RedisCluster;
import io.pixquota.harness.RespConnection;
import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.PermitPool;
import io.pixquota.throttle.store.StoreUnavailableException;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.redis.internal.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Buckets on a real 3-master Redis Cluster, through the client the SDK builds from a {@code redis-cluster://}
 * address; the bucket's clock is a test clock (client-clock mode), so every figure is exact.
 */
class RedisClusterBucketsTest {
  private static RedisCluster cluster;
  private static RedissonClient redisson;

  @BeforeAll
  static void start() {
    cluster = RedisCluster.start(3);
    redisson = RedisAddress.parse(cluster.url()).connect(Duration.ofSeconds(2));
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    cluster.close();
  }

  /** Two bucket names for every master, by the slot of their hash tag: master i's are at 2 i and 2 i + 1. */
  private static List<String> twoNamesPerMaster() {
    List<List<String>> byMaster = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int i = 0; byMaster.stream().anyMatch(names -> names.size() < 2); i++) {
      String name = "spread-" + i;
      List<String> names = byMaster.get(cluster.masterIndexAtStart(cluster.slot("{" + name + "}")));
      if (names.size() < 2) {
        names.add(name);
      }
    }
    return byMaster.stream().flatMap(List::stream).toList();
  }

  private static int grantedAtOnce(TokenBucket bucket) throws Exception {
    int granted = 0;
    while (bucket.acquire(1, Duration.ZERO).granted()) {
      granted++;
    }
    return granted;
  }

  @Test
  void bucketsSpreadOverEveryMasterAndEachEnforcesItsOwnLimit() throws Exception {
    FakeTime time = FakeTime.manual(1_000);
    long noScriptBefore = LuaScript.TOKEN_BUCKET.noScriptCount();
    List<TokenBucket> buckets = new ArrayList<>();
    for (String name : twoNamesPerMaster()) {
      buckets.add(RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.custom(name).limit(8, 9)
          .clientClock(time.clock()).build(), time));
    }
    for (TokenBucket bucket : buckets) {
      assertThat(grantedAtOnce(bucket)).as("the burst of %s", bucket).isEqualTo(8);
    }
    time.advance(Duration.ofMillis(500));
    for (TokenBucket bucket : buckets) {
      assertThat(grantedAtOnce(bucket)).as("half a second's refill of %s", bucket).isEqualTo(4);
    }
    for (PrivateRedisServer master : cluster.masters()) {
      try (RespConnection c = master.rawConnection()) {
        assertThat(c.call("DBSIZE")).as("keys on master %d", master.port()).isEqualTo(2L);
      }
    }
    assertThat(LuaScript.TOKEN_BUCKET.noScriptCount() - noScriptBefore)
        .as("NOSCRIPT once per master, answered by EVAL on the node that owns the key").isEqualTo(3);
  }

  @Test
  void aOneNodeAddressOnAClusterNodeIsAnErrorThatSaysWhatToUse() {
    RedissonClient single = RedisAddress.parse(cluster.masters().get(0).uri().toString())
        .connect(Duration.ofSeconds(1));
    try {
      String elsewhere = twoNamesPerMaster().get(5); // on master 2, not on master 0
      TokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(single), TokenBucketConfig.of(elsewhere, 8, 9));
      assertThatThrownBy(() -> bucket.acquire(1, Duration.ZERO)).isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("(MOVED)").hasMessageContaining("redis-cluster://");
    } finally {
      single.shutdown();
    }
  }

  @Test
  void aGroupDecidesItsBucketsAndCreditsInOneSlotOfTheCluster() throws Exception {
    RedisBucketGroup group = RedisBucketGroup.create(RedissonStore.of(redisson), "dict-12345678", "pq-test:",
        Duration.ofSeconds(5));
    BucketGroup.GroupBucket user = new BucketGroup.GroupBucket("u:someone", Limit.of(100, 2 / 60.0));
    BucketGroup.GroupBucket psp = new BucketGroup.GroupBucket("ENTRIES_READ_PARTICIPANT_ANTISCAN",
        Limit.of(250, 25 / 60.0));
    BucketGroup.Credit credit = new BucketGroup.Credit("E12345678202612011200abcdefghijk",
        List.of(new BucketGroup.Give(user, BucketGroup.Give.Kind.REFUND, 1)), Duration.ofMinutes(5));
    BucketGroup.Acquired a = group.acquire(List.of(new BucketGroup.Take(user, 20, 1, false),
        new BucketGroup.Take(psp, 3, 1, true)), Duration.ZERO, List.of(), List.of(credit));
    assertThat(a.granted()).isTrue();
    assertThat(a.remaining()).containsExactly(80.0, 247.0);
    assertThat(group.redeem(credit.id(), 2)).isTrue();
    assertThat(group.redeem(credit.id(), 2)).as("a credit is given once").isFalse();
    long slot = cluster.slot("{dict-12345678}");
    for (String key : List.of(group.key("u:someone"), group.key("ENTRIES_READ_PARTICIPANT_ANTISCAN"))) {
      assertThat(cluster.slot(key)).as("the slot of %s", key).isEqualTo(slot);
    }
    long keys = 0;
    for (PrivateRedisServer master : cluster.masters()) {
      try (RespConnection c = master.rawConnection()) {
        keys += master.port() == cluster.masters().get(cluster.masterIndexAtStart(slot)).port()
            ? 0 : (Long) c.call("DBSIZE");
      }
    }
    assertThat(keys).as("no key of the group on the other masters").isZero();
    redisson.getKeys().delete(group.key("u:someone"), group.key("ENTRIES_READ_PARTICIPANT_ANTISCAN")); // others count
  }

  @Test
  void aPermitPoolBesideABucketGrantsAWaiterOfAnotherClientItsPermitOnEveryMaster() throws Exception {
    RedissonClient other = RedisAddress.parse(cluster.url()).connect(Duration.ofSeconds(2));
    try {
      for (String name : twoNamesPerMaster()) {
        TokenBucketConfig config = TokenBucketConfig.custom(name).limit(8, 9).build();
        RedisPermitPool holder = RedisPermitPool.beside(RedisTokenBucket.create(RedissonStore.of(redisson), config),
            "spi", 1,
            Duration.ofSeconds(30));
        RedisTokenBucket theirs = RedisTokenBucket.create(RedissonStore.of(other), config);
        RedisPermitPool waiting = RedisPermitPool.beside(theirs, "spi", 1, Duration.ofSeconds(30));
        waiting.preload();
        PermitPool.PermitAnswer a = holder.take(PermitPool.Waiter.of(0), null);
        PermitPool.Waiter b = PermitPool.Waiter.of(0, Duration.ofSeconds(20));
        PermitPool.SlotAsk slot = new PermitPool.SlotAsk(theirs, 1, Duration.ofSeconds(20));
        assertThat(waiting.take(b, slot).ahead()).as("in line on %s", name).isEqualTo(1);
        CompletableFuture<Void> turn = waiting.turn(b, Duration.ofSeconds(20)).toCompletableFuture();
        long sent = System.nanoTime();
        holder.release(a.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        turn.get(5, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("heard on %s, not at its 1.5 s timer", name)
            .isLessThan(Duration.ofSeconds(1));
        PermitPool.PermitAnswer granted = waiting.take(b, slot);
        assertThat(granted.permit()).as("its permit on %s", name).isNotNull();
        assertThat(granted.acquisition().granted()).as("and its slot").isTrue();
        waiting.release(granted.permit()).toCompletableFuture().get(5, TimeUnit.SECONDS);
      }
    } finally {
      other.shutdown();
    }
  }
}
