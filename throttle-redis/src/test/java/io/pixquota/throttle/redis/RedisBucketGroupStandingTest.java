package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.throttle.store.BucketGroup;
import io.pixquota.throttle.store.BucketGroup.Acquired;
import io.pixquota.throttle.store.BucketGroup.Credit;
import io.pixquota.throttle.store.BucketGroup.Give;
import io.pixquota.throttle.store.BucketGroup.GroupBucket;
import io.pixquota.throttle.store.BucketGroup.Standing;
import io.pixquota.throttle.store.BucketGroup.Take;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.Limit;
import io.pixquota.throttle.store.LocalBucketGroup;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A participant bucket's reserve and an end user's standing, in Redis, on a clock the test moves: a caller without
 * standing is refused at the reserve (at once, with when it could pass), one with standing uses the reserve and pays
 * its price, once per lookup (a second lookup in flight finds it spent); standing is earned and lost by gives and
 * credits, outlives a full bucket for the standing ttl, and is stored so that the previous release's script reads the
 * key as a valid bucket (dropping the standing) instead of as garbage.
 */
class RedisBucketGroupStandingTest {
  private static final FakeTime TIME = FakeTime.manual(80_000);
  private static final GroupBucket USER = new GroupBucket("u:maria", Limit.of(100, 2 / 60.0));
  private static final GroupBucket SCANNER = new GroupBucket("u:scanner", Limit.of(100, 2 / 60.0));
  private static final GroupBucket PSP = new GroupBucket("PARTICIPANT", Limit.of(250, 25 / 60.0));
  private static final double RESERVE = 125;
  private static RedisOnFakeTime redis;
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
    group = RedisBucketGroup.create(RedissonStore.of(redis.redisson), "dict-1", "pq:", Duration.ofSeconds(5),
        Duration.ofHours(1));
  }

  /** A lookup whose worst case costs the participant 3, keeping the reserve unless {@code user}'s standing pays. */
  private Acquired lookup(GroupBucket user) throws Exception {
    return group.acquire(List.of(new Take(user, 20, 1, false), new Take(PSP, 3, 1, true, RESERVE)),
        Duration.ofSeconds(10), List.of(), List.of(), new Standing(user, 3));
  }

  private void earn(GroupBucket user, double amount) throws Exception {
    group.give(List.of(new Give(user, Give.Kind.EARN, amount)), List.of());
  }

  @Test
  void withoutStandingTheReserveRefusesAtOnceAndSaysWhenWithStandingItServesAndCharges() throws Exception {
    group.give(List.of(new Give(PSP, Give.Kind.LOWER_TO, RESERVE)), List.of());
    Acquired scan = lookup(SCANNER);
    assertThat(scan.granted()).isFalse();
    assertThat(scan.refusedBy()).isEqualTo(PSP);
    assertThat(scan.byReserve()).isTrue();
    assertThat(scan.retryAfter()).as("until the bucket holds reserve + need: 1 token at 25/min")
        .isEqualTo(Duration.ofMillis(2400));
    assertThat(scan.standing()).isZero();
    assertThat(redis.admin.call("GET", group.key("u:scanner"))).as("a refusal writes nothing").isNull();

    earn(USER, 4);
    Acquired honest = lookup(USER);
    assertThat(honest.granted()).isTrue();
    assertThat(honest.waived()).isTrue();
    assertThat(honest.standing()).as("4 - the price 3").isEqualTo(1);
    assertThat(honest.remaining().get(1)).isCloseTo(RESERVE - 3, within(1e-9));
    Acquired again = lookup(USER);
    assertThat(again.granted()).as("the price is spent: a second lookup in flight is a stranger").isFalse();
    assertThat(again.byReserve()).isTrue();

    earn(USER, 3 + 1); // the first lookup found its key: the price back and one more
    assertThat(lookup(USER).granted()).isTrue();
    Acquired onlyRead = group.acquire(List.of(new Take(USER, 20, 1, false), new Take(PSP, 3, 1, true, RESERVE)),
        Duration.ofSeconds(10), List.of(), List.of(), new Standing(USER, 0));
    assertThat(onlyRead.granted()).as("price 0 reads the standing and uses no reserve").isFalse();
    assertThat(onlyRead.standing()).isEqualTo(2);
  }

  @Test
  void standingOutlivesAFullBucketForItsTtlAndIsKeptWithinCapacity() throws Exception {
    earn(USER, 1_000);
    assertThat((String) redis.admin.call("GET", group.key("u:maria"))).as("capped at capacity 100")
        .endsWith(".100").startsWith("100 ");
    assertThat(((Number) redis.admin.call("PTTL", group.key("u:maria"))).longValue()).isEqualTo(3_600_000);
    earn(USER, -30);
    TIME.advanceMillis(3_599_000);
    assertThat(lookup(USER).standing()).isEqualTo(70);
    earn(USER, -1_000); // 80 tokens and no standing: the key lives until the bucket is full again, 600 s
    assertThat(((Number) redis.admin.call("PTTL", group.key("u:maria"))).longValue()).isEqualTo(600_001);
    TIME.advanceMillis(601_000);
    assertThat(redis.admin.call("GET", group.key("u:maria"))).isNull();
  }

  @Test
  void aSettledPaymentsCreditEarnsStandingOnceWhereverItIsRedeemed() throws Exception {
    Credit paid = new Credit("E1", List.of(new Give(USER, Give.Kind.REFUND, 1), new Give(USER, Give.Kind.EARN, 3)),
        Duration.ofHours(1));
    group.acquire(List.of(new Take(USER, 1, 1, false)), Duration.ZERO, List.of(), List.of(paid));
    assertThat(group.redeem("E1", 1)).isTrue();
    assertThat(group.redeem("E1", 1)).isFalse();
    Acquired a = lookup(USER);
    assertThat(a.standing()).isEqualTo(3);
    assertThat(a.remaining().get(0)).as("the lookup's 1 refunded, then 20 booked").isCloseTo(80, within(1e-6));
  }

  @Test
  void thePreviousReleasesScriptReadsAKeyWithStandingAsABucketAndDropsTheStanding() throws Exception {
    earn(USER, 7);
    group.acquire(List.of(new Take(USER, 20, 1, false)), Duration.ZERO, List.of(), List.of());
    String stored = (String) redis.admin.call("GET", group.key("u:maria"));
    assertThat(stored).matches("80 \\d+\\.7");
    String reply = (String) redis.admin.call("EVAL", layout1Script(), "1", group.key("u:maria"), "acquire", "0", "",
        "u:maria 100 0.033333333333333333 1 1 n", "", "");
    assertThat(reply).as("granted, no repair, 79 left").startsWith("1 0 0 0 ").contains(" 0 79");
    assertThat((String) redis.admin.call("GET", group.key("u:maria"))).as("the old release drops the standing")
        .matches("79 \\d+");
    assertThat(lookup(USER).standing()).isZero();
  }

  @Test
  void aGroupThatKeepsNoReservesRefusesThemRatherThanIgnoreThem() {
    BucketGroup plain = new BucketGroup() {
      @Override
      public String name() {
        return "plain";
      }

      @Override
      public Acquired acquire(List<Take> takes, Duration maxWait, List<Give> gives, List<Credit> credits) {
        throw new AssertionError("not reached");
      }

      @Override
      public void give(List<Give> gives, List<Credit> credits) {}

      @Override
      public boolean redeem(String creditId, double maxRefund) {
        return false;
      }
    };
    assertThatThrownBy(() -> plain.acquire(List.of(new Take(PSP, 3, 1, true, RESERVE)), Duration.ZERO, List.of(),
        List.of(), null)).isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("reserves");
    assertThatThrownBy(() -> new Standing(USER, 0.5)).hasMessageContaining("whole number within 0..capacity");
    assertThatThrownBy(() -> new Take(PSP, 3, 1, true, 251)).hasMessageContaining("reserve must be within");
    assertThatThrownBy(() -> new Give(USER, Give.Kind.EARN, 1.5)).hasMessageContaining("whole number");
    assertThat(new LocalBucketGroup("l", TIME::nanoTime).acquire(List.of(new Take(PSP, 3, 1, true, RESERVE)),
        Duration.ZERO, List.of(), List.of(), null).granted()).isTrue();
  }

  private static String layout1Script() throws IOException {
    try (InputStream in = RedisBucketGroupStandingTest.class.getResourceAsStream("bucket_group_layout1.lua")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
