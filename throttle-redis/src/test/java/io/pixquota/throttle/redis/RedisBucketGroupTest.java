package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Credit;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * The Redis group on a private Redis whose clock (and key expiry) follow the test's: a decision is all or none, an
 * end user's refusal says when, a bucket's key is gone once it is full again (so idle users cost nothing), and a
 * credit is given once by whichever process redeems it first.
 */
class RedisBucketGroupTest {
  private static final FakeTime TIME = FakeTime.manual(50_000);
  private static RedisOnFakeTime redis;
  private static final GroupBucket USER = new GroupBucket("u:maria", Limit.of(100, 2 / 60.0));
  private static final GroupBucket PSP = new GroupBucket("ENTRIES_READ_PARTICIPANT_ANTISCAN", Limit.of(250, 25 / 60.0));
  private RedisBucketGroup group;

  @BeforeAll
  static void start() {
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @BeforeEach
  void flush() {
    redis.admin.call("FLUSHALL");
    group = RedisBucketGroup.create(RedissonStore.of(redis.redisson), "dict-12345678", "pq:", Duration.ofSeconds(5));
  }

  private Acquired lookup(double userCost) throws Exception {
    return group.acquire(List.of(new Take(USER, userCost, Math.min(1, userCost), false), new Take(PSP, 3, 1, true)),
        Duration.ZERO, List.of(), List.of());
  }

  @Test
  void aBucketIsGoneOnceFullAgainSoIdleUsersLeaveNothing() throws Exception {
    for (int u = 0; u < 50; u++) {
      GroupBucket user = new GroupBucket("u:" + u, Limit.of(100, 2 / 60.0));
      group.acquire(List.of(new Take(user, 1, 1, false)), Duration.ZERO, List.of(), List.of());
    }
    assertThat((Long) redis.admin.call("DBSIZE")).isEqualTo(50L);
    assertThat((Long) redis.admin.call("PTTL", group.key("u:0"))).as("1 token at 2/min, to the millisecond")
        .isEqualTo(30_001L);
    TIME.advance(Duration.ofMillis(30_002));
    Awaits.until("every user full again: no key left (Redis's active expiry)", Duration.ofSeconds(10),
        () -> (Long) redis.admin.call("DBSIZE") == 0);
    group.acquire(List.of(new Take(USER, 1, 1, false)), Duration.ZERO, List.of(), List.of());
    assertThat((Long) redis.admin.call("DBSIZE")).isEqualTo(1L);
    group.give(List.of(new Give(USER, Give.Kind.REFUND, 1)), List.of());
    assertThat((Long) redis.admin.call("DBSIZE")).as("refunded to full: deleted at once").isZero();
  }

  @Test
  void aBucketOfTheWrongTypeOrFarTooDeepInDebtHealsAtTheNextLookup() throws Exception {
    redis.admin.call("RPUSH", group.key(PSP.name()), "not", "a", "bucket");
    redis.admin.call("SET", group.key(USER.name()), "-1e300 " + TIME.micros());
    Acquired a = lookup(1);
    assertThat(a.granted()).as("both read as full buckets").isTrue();
    assertThat(a.remaining()).containsExactly(99.0, 247.0);
    assertThat(redis.admin.call("TYPE", group.key(PSP.name()))).isEqualTo("string");
    assertThat(lookup(1).remaining()).as("healed: the next lookup charged as any").containsExactly(98.0, 244.0);
  }

  @Test
  void aCreditIsGivenOnceAcrossProcessesAndBoundedWhenReadBack() throws Exception {
    lookup(20);
    Credit credit = new Credit("E12345678202612011200abcdefghijk", List.of(new Give(USER, Give.Kind.REFUND, 1),
        new Give(PSP, Give.Kind.REFUND, 1)), Duration.ofHours(1));
    group.give(List.of(), List.of(credit));
    List<RedissonClient> clients = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Callable<Boolean>> redeems = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        RedissonClient c = Redisson.create(TestRedis.redissonConfig(redis.redis.uri().toString()));
        clients.add(c);
        RedisBucketGroup other = RedisBucketGroup.create(RedissonStore.of(c), "dict-12345678", "pq:",
            Duration.ofSeconds(5));
        redeems.add(() -> other.redeem(credit.id(), 2));
      }
      int given = 0;
      for (Future<Boolean> f : pool.invokeAll(redeems)) {
        given += f.get() ? 1 : 0;
      }
      assertThat(given).as("eight processes redeem the same credit").isEqualTo(1);
    } finally {
      pool.shutdownNow();
      clients.forEach(RedissonClient::shutdown);
    }
    assertThat(lookup(0).remaining()).as("the credit given back once: 80 + 1, and 247 + 1 - 3")
        .containsExactly(81.0, 245.0);
    redis.admin.call("SET", "pq:{dict-12345678}:c:forged",
        "u:maria 100 0.0333 90;ENTRIES_READ_PARTICIPANT_ANTISCAN 250 1 x");
    assertThat(group.redeem("forged", 2)).isTrue();
    assertThat(lookup(0).remaining().get(0)).as("a forged credit's refund bounded by the caller's 2; one that does "
        + "not parse gives nothing").isEqualTo(83.0);
  }

  @Test
  void badInputIsRefusedBeforeAnyIo() {
    assertThatThrownBy(() -> new GroupBucket("u:{x}", Limit.of(1, 1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucket name must be 1 to 64 letters, digits, '.', '_', ':' or '-', but was 'u:{x}'");
    assertThatThrownBy(() -> new Take(USER, 101, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost must be within 0..capacity 100.0 of bucket 'u:maria', but was 101.0");
    assertThatThrownBy(() -> new Take(USER, 1, 2, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("need must be within 0..cost 1.0 of bucket 'u:maria', but was 2.0");
    assertThatThrownBy(() -> group.redeem("a b", 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("creditId must be 1 to 64 letters, digits, '.', '_', ':' or '-', but was 'a b'");
    assertThatThrownBy(() -> RedisBucketGroup.create(RedissonStore.of(redis.redisson), "dict", "a{b",
        Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("keyPrefix must not contain '{' or '}', but was 'a{b'");
  }
}
