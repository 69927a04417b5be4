package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.internal.GroupStep;
import io.pixquota.throttle.redis.internal.GroupProtocol;
import io.pixquota.throttle.redis.internal.LuaScript;
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
 * sequences of acquires (takes with a need below their cost, waiting or not, max waits from 0 to a day), gives
 * (refunds, lowerings), credits remembered and redeemed (with a bound on each refund), time moving by 0 to 200 s, and
 * keys overwritten with garbage, counts beyond capacity, times ahead, and credits that do not parse. Both get their
 * arguments from one encoder ({@link GroupProtocol}); Redis's clock and key expiry follow the test's.
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
        "debt", "repaired", "lowered", "redeemed", "redeem again", "deleted full", "expired");
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
    return new GroupStep.Part((String) b[0], capacity, (double) b[2], cost, need, i >= 2 || r.nextInt(4) == 0);
  }

  @Property(tries = 40)
  void theGroupScriptAndItsJavaTwinAgree(@ForAll long seed) throws Exception {
    Random r = new Random(seed);
    String base = "agree:{g" + (++run) + "}:";
    GroupStep.Store model = new GroupStep.Store();
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
        boolean expected = GroupStep.redeem(model, id, most, now);
        Object got = LuaScript.BUCKET_GROUP.call(LuaScript.target(redis.redisson, base + "c:" + id),
            GroupProtocol.redeem(base, most, null), TimeUnit.SECONDS.toNanos(5), System::nanoTime).text();
        assertThat(got).as(where + ": redeem " + id).isEqualTo(expected ? "1" : "0");
        seen(expected ? "redeemed" : "redeem again");
      } else {
        acquire(r, base, model, now, where);
      }
      compareState(base, model, now, where);
    }
  }

  private void acquire(Random r, String base, GroupStep.Store model, long now, String where) throws Exception {
    List<GroupStep.Part> parts = new ArrayList<>();
    for (int i = 0; i < BUCKETS.length; i++) {
      if (r.nextInt(3) > 0) {
        parts.add(part(r, i, r.nextInt(5) > 0));
      }
    }
    List<GroupStep.Gift> gifts = new ArrayList<>();
    for (GroupStep.Part p : parts) {
      if (r.nextInt(4) == 0) {
        boolean lower = r.nextBoolean();
        gifts.add(new GroupStep.Gift(p.name(), lower, lower ? new double[] {0, -20, 5, 1e6}[r.nextInt(4)]
            : new double[] {1, 19, 2, 5000}[r.nextInt(4)]));
        seen(lower ? "lowered" : "refunded");
      }
    }
    List<GroupStep.Memo> memos = new ArrayList<>();
    if (r.nextInt(4) == 0 && !parts.isEmpty()) {
      GroupStep.Part p = parts.get(0);
      memos.add(new GroupStep.Memo("c" + r.nextInt(3), List.of(new GroupStep.Part(p.name(), p.capacity(),
          p.refill(), new double[] {1, 2, 50}[r.nextInt(3)], 0, true)), new long[] {500, 60_000}[r.nextInt(2)]));
    }
    long maxWait = new long[] {0, 1_000_000, 60_000_000, 86_400_000_000L}[r.nextInt(4)];
    GroupStep.Reply expected = GroupStep.step(model, parts, maxWait, gifts, memos, now);
    List<Object> keys = new ArrayList<>();
    parts.forEach(p -> keys.add(base + "b:" + p.name()));
    memos.forEach(m -> keys.add(base + "c:" + m.id()));
    String routing = keys.isEmpty() ? base + "b:" : (String) keys.get(0);
    GroupStep.Reply actual = GroupProtocol.reply(LuaScript.BUCKET_GROUP.call(
        LuaScript.target(redis.redisson, routing, keys), GroupProtocol.acquire(parts, maxWait, gifts, memos, null),
        TimeUnit.SECONDS.toNanos(5), System::nanoTime).text());
    assertThat(actual.granted()).as(where + ": granted").isEqualTo(expected.granted());
    assertThat(actual.waitMicros()).as(where + ": wait").isEqualTo(expected.waitMicros());
    assertThat(actual.refusedBy()).as(where + ": refusedBy").isEqualTo(expected.refusedBy());
    assertThat(actual.retryMicros()).as(where + ": retry").isEqualTo(expected.retryMicros());
    assertThat(actual.nowMicros()).as(where + ": now").isEqualTo(expected.nowMicros());
    assertThat(actual.repaired()).as(where + ": repaired").isEqualTo(expected.repaired());
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
        assertThat(Long.parseLong(v[1])).as(where + ": " + name + " time").isEqualTo(s.updatedMicros());
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
      String[] raw = {"u:a 100 0 5", "u:a 100 0.0333 -4", "u:a 100 0.0333 1e9", "not a credit", "u:a 100 0.0333 3"};
      int k = r.nextInt(raw.length);
      redis.admin.call("SET", base + "c:" + id, raw[k]);
      List<GroupStep.Part> refunds = switch (k) {
        case 0 -> List.of(new GroupStep.Part("u:a", 100, 0, 5, 0, true));
        case 1 -> List.of(new GroupStep.Part("u:a", 100, 0.0333, -4, 0, true));
        case 2 -> List.of(new GroupStep.Part("u:a", 100, 0.0333, 1e9, 0, true));
        case 3 -> List.of();
        default -> List.of(new GroupStep.Part("u:a", 100, 0.0333, 3, 0, true));
      };
      model.putCredit(id, new GroupStep.Remembered(refunds, Long.MAX_VALUE));
      return;
    }
    String name = (String) BUCKETS[r.nextInt(BUCKETS.length)][0];
    String[] raw = {"nan " + now, "1e400 " + now, "5000 " + now, "-3 " + (now + 3_600_000_000L), "garbage",
        "2.5 " + (now - 10_000_000), "-1e300 " + now};
    GroupStep.Stored[] as = {new GroupStep.Stored(Double.NaN, now, Long.MAX_VALUE),
        new GroupStep.Stored(Double.POSITIVE_INFINITY, now, Long.MAX_VALUE),
        new GroupStep.Stored(5000, now, Long.MAX_VALUE),
        new GroupStep.Stored(-3, now + 3_600_000_000L, Long.MAX_VALUE),
        new GroupStep.Stored(Double.NaN, Long.MAX_VALUE, Long.MAX_VALUE),
        new GroupStep.Stored(2.5, now - 10_000_000, Long.MAX_VALUE),
        new GroupStep.Stored(-1e300, now, Long.MAX_VALUE)};
    int k = r.nextInt(raw.length);
    redis.admin.call("SET", base + "b:" + name, raw[k]);
    model.put(name, as[k]);
  }
}
