package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.internal.GroupStep;
import io.pixquota.throttle.redis.internal.GroupProtocol;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.RedissonScripts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * {@code bucket_group.lua} and {@link GroupStep} (its Java twin, which the local group and the DICT property test run
 * on) give the same answer and leave the same state, key for key (tokens, time, expiry; absent when full), to random
 * sequences of acquires (takes with a need below their cost, waiting or not, with reserves or not, max waits from 0
 * to a day, a standing that may use the reserves or none), gives (refunds, lowerings, earnings of standing), credits
 * remembered and redeemed (with a bound on each refund, earnings among them), time moving by 0 to 200 s, and keys
 * overwritten with garbage, counts beyond capacity, times ahead, standing beyond capacity, and credits that do not
 * parse. Both get their arguments from one encoder ({@link GroupProtocol}); Redis's clock and key expiry follow the
 * test's.
 */
class GroupScriptAndJavaAgreeTest {
  private static final FakeTime TIME = FakeTime.manual(20_000);
  private static final Map<String, Integer> SEEN = new TreeMap<>();
  private static RedisOnFakeTime redis;
  private static int run;

  /** name, capacity, refill per second: an end user's bucket (two person types), the participant's two. */
  private static final Object[][] BUCKETS = {{"u:a", 100.0, 2 / 60.0}, {"u:b", 1000.0, 20 / 60.0},
      {"PARTICIPANT", 250.0, 25 / 60.0}, {"READ", 20.0, 4.0}};

  @BeforeContainer
  static void start() {
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterContainer
  static void stop() {
    redis.close();
    System.out.println("GroupScriptAndJavaAgreeTest saw: " + SEEN);
    assertThat(SEEN).as("the sequences reached every case").containsKeys("granted", "refused now", "refused wait",
        "debt", "repaired", "lowered", "redeemed", "redeem again", "deleted full", "expired", "refused by reserve",
        "reserve used on standing", "earned", "kept full for its standing");
  }

  private static void seen(String what) {
    SEEN.merge(what, 1, Integer::sum);
  }

  private static GroupStep.Part part(Random r, int i, boolean withCost) {
    Object[] b = BUCKETS[i];
    double capacity = (double) b[1];
    double cost = withCost ? new double[] {1, 20, 3, 0.5, capacity}[r.nextInt(5)] : 0;
    cost = Math.min(cost, capacity);
    double need = withCost ? Math.min(cost, new double[] {1, cost, 0.5}[r.nextInt(3)]) : 0;
    double reserve = i >= 2 && r.nextBoolean() ? new double[] {0.5, 0.9, 0.2}[r.nextInt(3)] * capacity : 0;
    return new GroupStep.Part((String) b[0], capacity, (double) b[2], cost, need, i >= 2 || r.nextInt(4) == 0,
        reserve);
  }

  @Property(tries = 40)
  void theGroupScriptAndItsJavaTwinAgree(@ForAll long seed) throws Exception {
    Random r = new Random(seed);
    String base = "agree:{g" + (++run) + "}:";
    GroupStep.Store model = new GroupStep.Store();
    long standingMillis = new long[] {60_000, 3_600_000}[r.nextInt(2)];
    for (int step = 0; step < 60; step++) {
      List<String> present = new ArrayList<>();
      for (Object[] b : BUCKETS) {
        if (model.get((String) b[0], TIME.micros()) != null) {
          present.add((String) b[0]);
        }
      }
      TIME.advanceMillis(r.nextInt(3) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 2_000 : 200_000));
      long now = TIME.micros();
      for (String name : present) {
        if (model.get(name, now) == null) {
          seen("expired");
        }
      }
      String where = "seed " + seed + ", step " + step;
      if (r.nextInt(8) == 0) {
        corrupt(r, base, model, now);
      }
      if (r.nextInt(6) == 0) {
        String id = "c" + r.nextInt(3);
        double most = new double[] {1, 2, 100}[r.nextInt(3)];
        boolean expected = GroupStep.redeem(model, id, most, standingMillis, now);
        Object got = LuaScript.BUCKET_GROUP.call(LuaScript.target(RedissonScripts.of(redis.redisson), base + "c:" + id),
            GroupProtocol.redeem(base, most, standingMillis, null), TimeUnit.SECONDS.toNanos(5), System::nanoTime)
            .text();
        assertThat(got).as(where + ": redeem " + id).isEqualTo(expected ? "1" : "0");
        seen(expected ? "redeemed" : "redeem again");
      } else {
        acquire(r, base, model, now, standingMillis, where);
      }
      compareState(base, model, now, where);
    }
  }

  private void acquire(Random r, String base, GroupStep.Store model, long now, long standingMillis, String where)
      throws Exception {
    List<GroupStep.Part> parts = new ArrayList<>();
    for (int i = 0; i < BUCKETS.length; i++) {
      if (r.nextInt(3) > 0) {
        parts.add(part(r, i, r.nextInt(5) > 0));
      }
    }
    List<GroupStep.Gift> gifts = new ArrayList<>();
    for (GroupStep.Part p : parts) {
      if (r.nextInt(4) == 0) {
        GroupStep.GiftKind kind = GroupStep.GiftKind.values()[r.nextInt(3)];
        gifts.add(new GroupStep.Gift(p.name(), kind, switch (kind) {
          case LOWER -> new double[] {0, -20, 5, 1e6}[r.nextInt(4)];
          case REFUND -> new double[] {1, 19, 2, 5000}[r.nextInt(4)];
          case EARN -> new double[] {1, 3, -3, -5000, 5000}[r.nextInt(5)];
        }));
        seen(kind == GroupStep.GiftKind.LOWER ? "lowered" : kind == GroupStep.GiftKind.EARN ? "earned" : "refunded");
      }
    }
    List<GroupStep.Memo> memos = new ArrayList<>();
    if (r.nextInt(4) == 0 && !parts.isEmpty()) {
      GroupStep.Part p = parts.get(0);
      List<GroupStep.Refund> refunds = new ArrayList<>(List.of(new GroupStep.Refund(p.name(), p.capacity(),
          p.refill(), new double[] {1, 2, 50}[r.nextInt(3)], false)));
      if (r.nextBoolean()) {
        refunds.add(new GroupStep.Refund(p.name(), p.capacity(), p.refill(), new double[] {3, -3, 1}[r.nextInt(3)],
            true));
      }
      memos.add(new GroupStep.Memo("c" + r.nextInt(3), refunds, new long[] {500, 60_000}[r.nextInt(2)]));
    }
    GroupStep.StandingRule standing = null;
    for (int i = 0; i < parts.size() && standing == null; i++) {
      if (parts.get(i).name().startsWith("u:") && r.nextInt(3) > 0) {
        standing = new GroupStep.StandingRule(i + 1, new long[] {1, 3, 50, 0}[r.nextInt(4)]);
      }
    }
    long maxWait = new long[] {0, 1_000_000, 60_000_000, 86_400_000_000L}[r.nextInt(4)];
    GroupStep.Reply expected = GroupStep.step(model, parts, maxWait, gifts, memos, standing, standingMillis, now);
    List<Object> keys = new ArrayList<>();
    parts.forEach(p -> keys.add(base + "b:" + p.name()));
    memos.forEach(m -> keys.add(base + "c:" + m.id()));
    String routing = keys.isEmpty() ? base + "b:" : (String) keys.get(0);
    GroupStep.Reply actual = GroupProtocol.reply(LuaScript.BUCKET_GROUP.call(
        LuaScript.target(RedissonScripts.of(redis.redisson), routing, keys), GroupProtocol.acquire(parts, maxWait,
        gifts, memos, standing, standingMillis, null), TimeUnit.SECONDS.toNanos(5), System::nanoTime).text());
    assertThat(actual.granted()).as(where + ": granted").isEqualTo(expected.granted());
    assertThat(actual.waitMicros()).as(where + ": wait").isEqualTo(expected.waitMicros());
    assertThat(actual.refusedBy()).as(where + ": refusedBy").isEqualTo(expected.refusedBy());
    assertThat(actual.retryMicros()).as(where + ": retry").isEqualTo(expected.retryMicros());
    assertThat(actual.nowMicros()).as(where + ": now").isEqualTo(expected.nowMicros());
    assertThat(actual.repaired()).as(where + ": repaired").isEqualTo(expected.repaired());
    assertThat(actual.byReserve()).as(where + ": byReserve").isEqualTo(expected.byReserve());
    assertThat(actual.waived()).as(where + ": waived").isEqualTo(expected.waived());
    assertThat(actual.standing()).as(where + ": standing").isEqualTo(expected.standing());
    if (expected.byReserve()) {
      seen("refused by reserve");
    }
    if (expected.waived()) {
      seen("reserve used on standing");
    }
    assertThat(actual.remaining()).as(where + ": remaining").hasSameSizeAs(expected.remaining());
    for (int i = 0; i < expected.remaining().size(); i++) {
      assertThat(actual.remaining().get(i)).as(where + ": remaining " + i)
          .isCloseTo(expected.remaining().get(i), within(1e-9 * Math.max(1, Math.abs(expected.remaining().get(i)))));
      if (expected.granted() && expected.remaining().get(i) < 0) {
        seen("debt");
      }
    }
    seen(expected.granted() ? "granted" : expected.refusedBy() > 0 ? "refused now" : "refused wait");
    for (GroupStep.Part p : parts) {
      if (expected.granted() && model.get(p.name(), now) == null) {
        seen("deleted full");
      }
    }
    if (expected.repaired() > 0) {
      seen("repaired");
    }
  }

  /** Every bucket's key: the same tokens, time and expiry (to the millisecond) on both sides, or absent on both. */
  private void compareState(String base, GroupStep.Store model, long now, String where) {
    for (Object[] b : BUCKETS) {
      String name = (String) b[0];
      GroupStep.Stored s = model.get(name, now);
      Object value = redis.admin.call("GET", base + "b:" + name);
      if (s == null) {
        assertThat(value).as(where + ": " + name + " absent at " + now + " (Redis's PTTL "
            + redis.admin.call("PTTL", base + "b:" + name) + ", TIME " + redis.admin.call("TIME") + ")").isNull();
        continue;
      }
      assertThat(value).as(where + ": " + name + " present").isNotNull();
      String[] v = ((String) value).split(" ");
      if (v.length == 2 && Double.isFinite(s.tokens())) {
        assertThat(Double.parseDouble(v[0])).as(where + ": " + name + " tokens").isCloseTo(s.tokens(),
            within(1e-9 * Math.max(1, Math.abs(s.tokens()))));
        String[] time = v[1].split("\\.");
        assertThat(Long.parseLong(time[0])).as(where + ": " + name + " time").isEqualTo(s.updatedMicros());
        assertThat(time.length == 2 ? Long.parseLong(time[1]) : 0).as(where + ": " + name + " standing")
            .isEqualTo(s.standing());
        if (s.standing() > 0 && s.tokens() >= (double) b[1]) {
          seen("kept full for its standing");
        }
      }
      long pttl = ((Number) redis.admin.call("PTTL", base + "b:" + name)).longValue();
      long expected = s.expiresAtMillis() == Long.MAX_VALUE ? -1 : s.expiresAtMillis() - Math.floorDiv(now, 1000);
      assertThat(pttl).as(where + ": " + name + " ttl").isEqualTo(expected);
    }
  }

  /** A key overwritten as an operator, a bug or a failover could leave it; the model holds what the script reads. */
  private void corrupt(Random r, String base, GroupStep.Store model, long now) {
    if (r.nextInt(3) == 0) {
      String id = "c" + r.nextInt(3);
      String[] raw = {"u:a 100 0 5", "u:a 100 0.0333 -4", "u:a 100 0.0333 1e9", "not a credit", "u:a 100 0.0333 3",
          "u:a 100 0.0333 1e9 e", "u:a 100 0.0333 2.5 e"};
      int k = r.nextInt(raw.length);
      redis.admin.call("SET", base + "c:" + id, raw[k]);
      List<GroupStep.Refund> refunds = switch (k) {
        case 0 -> List.of(new GroupStep.Refund("u:a", 100, 0, 5, false));
        case 1 -> List.of(new GroupStep.Refund("u:a", 100, 0.0333, -4, false));
        case 2 -> List.of(new GroupStep.Refund("u:a", 100, 0.0333, 1e9, false));
        case 3 -> List.of();
        case 4 -> List.of(new GroupStep.Refund("u:a", 100, 0.0333, 3, false));
        case 5 -> List.of(new GroupStep.Refund("u:a", 100, 0.0333, 1e9, true));
        default -> List.of(new GroupStep.Refund("u:a", 100, 0.0333, 2.5, true));
      };
      model.putCredit(id, new GroupStep.Remembered(refunds, Long.MAX_VALUE));
      return;
    }
    String name = (String) BUCKETS[r.nextInt(BUCKETS.length)][0];
    String[] raw = {"nan " + now, "1e400 " + now, "5000 " + now, "-3 " + (now + 3_600_000_000L), "garbage",
        "2.5 " + (now - 10_000_000), "-1e300 " + now, "5 " + now + ".99999", "5 " + now + ".7",
        "1e400 " + now + ".3"};
    GroupStep.Stored[] as = {new GroupStep.Stored(Double.NaN, now, Long.MAX_VALUE),
        new GroupStep.Stored(Double.POSITIVE_INFINITY, now, Long.MAX_VALUE),
        new GroupStep.Stored(5000, now, Long.MAX_VALUE),
        new GroupStep.Stored(-3, now + 3_600_000_000L, Long.MAX_VALUE),
        new GroupStep.Stored(Double.NaN, Long.MAX_VALUE, Long.MAX_VALUE),
        new GroupStep.Stored(2.5, now - 10_000_000, Long.MAX_VALUE),
        new GroupStep.Stored(-1e300, now, Long.MAX_VALUE), new GroupStep.Stored(5, now, Long.MAX_VALUE, 99_999),
        new GroupStep.Stored(5, now, Long.MAX_VALUE, 7),
        new GroupStep.Stored(Double.POSITIVE_INFINITY, now, Long.MAX_VALUE, 3)};
    int k = r.nextInt(raw.length);
    redis.admin.call("SET", base + "b:" + name, raw[k]);
    model.put(name, as[k]);
  }
}
