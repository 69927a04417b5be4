package io.pixquota.throttle.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.internal.BucketReply;
import io.pixquota.throttle.internal.BucketStep;
import io.pixquota.throttle.internal.StepHash;
import io.pixquota.throttle.internal.StepSettings;
import io.pixquota.throttle.redis.internal.LuaScript;
import io.pixquota.throttle.redis.internal.RedissonScripts;
import io.pixquota.throttle.redis.internal.ScriptProtocol;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.redisson.client.codec.StringCodec;

/**
 * {@code token_bucket.lua} and {@link BucketStep} (its Java twin, which the local bucket and the simulations run on)
 * give the same answer, element for element, to random sequences of operations from replicas with different
 * configurations, leases and rate adaptations: acquire, charge, refund, and cuts with and without a Retry-After,
 * with time moving by 0 to 4 s between steps (so configurations lapse, holds end and keys expire), and fields of the
 * hash overwritten now and then with garbage, out-of-range values and times far ahead or behind, as an operator, a bug
 * or a failover could leave them (so both distrust and repair alike). Both sides get their arguments from one encoder
 * ({@link ScriptProtocol}). Redis's own clock follows the test's ({@link io.pixquota.testing.FakeClockRedis}), so both
 * sides see the same time.
 */
class ScriptAndJavaStepAgreeTest {
  private static final FakeTime TIME = FakeTime.manual(10_000);
  private static final java.util.Map<String, Double> PLAN = java.util.Map.of("checkout", 5.0, "merchant-api", 3.0,
      "*", 1.0);
  private static final String[] FLOWS = {"checkout", "checkout", "merchant-api", "merchant-api", "*", "nobody", null};
  private static RedisOnFakeTime redis;
  private static int run;
  /** What the sequences went through, over every try: each kind must have happened, or the test proved little. */
  private static final java.util.Map<String, Integer> SEEN = new java.util.TreeMap<>();

  private static final List<StepSettings> REPLICAS = List.of(
      new StepSettings(30_000_000, 30_000_000, new StepSettings.Adaptation(0.85, 0.005, 0.25, 15_000_000,
          5_000_000), "r0", List.of(new StepSettings.LimitArgs("8.0", "9.0"))),
      new StepSettings(2_000_000, 3_000_000, new StepSettings.Adaptation(0.5, 0.1, 0.3, 2_000_000, 0), "r1",
          List.of(new StepSettings.LimitArgs("10.0", "10.0"), new StepSettings.LimitArgs("30.0", "0.5"))),
      new StepSettings(5_000_000, 300_000_000, new StepSettings.Adaptation(0.9, 0.02, 0.5, 3_600_000_000L,
          1_000_000), "r2", List.of(new StepSettings.LimitArgs("4.0", "2.5"))),
      // r0's configuration on another replica with other settings: the fleet of one configuration, the script's
      // common path (r0 and r3 alone, nothing cut, nothing to repair)
      new StepSettings(20_000_000, 30_000_000, new StepSettings.Adaptation(0.7, 0.01, 0.2, 10_000_000, 0), "r3",
          List.of(new StepSettings.LimitArgs("8.0", "9.0"))),
      // r0's configuration with shares (issue 46): r4 and r5 one plan, r6 another
      new StepSettings(30_000_000, 30_000_000, new StepSettings.Adaptation(0.85, 0.005, 0.25, 15_000_000,
          5_000_000), "r4", List.of(new StepSettings.LimitArgs("8.0", "9.0")), PLAN),
      new StepSettings(10_000_000, 30_000_000, new StepSettings.Adaptation(0.5, 0.1, 0.3, 2_000_000, 0), "r5",
          List.of(new StepSettings.LimitArgs("8.0", "9.0")), PLAN),
      new StepSettings(30_000_000, 30_000_000, new StepSettings.Adaptation(0.85, 0.005, 0.25, 15_000_000, 0), "r6",
          List.of(new StepSettings.LimitArgs("8.0", "9.0")), java.util.Map.of("checkout", 1.0, "*", 1.0)));

  /** The fields of a state of r0's and r3's configuration alone, never cut nor held: the script's common path. */
  private static final String[] COMMON_FIELDS = {"u", "e", "v", "t:8.0:9.0", "c:8.0:9.0", "r:r0", "r:r3"};
  private static final java.util.Set<String> COMMON = java.util.Set.of(COMMON_FIELDS);

  /** The fields of a state of r4's and r5's plan alone, never cut nor held: the script's common path with shares. */
  private static final String[] SHARES_COMMON_FIELDS = {"u", "e", "v", "t:8.0:9.0", "c:8.0:9.0", "r:r4", "r:r5",
      "l:r4", "l:r5", "s:checkout", "s:merchant-api", "s:*"};
  private static final java.util.Set<String> SHARES_COMMON = java.util.Set.of(SHARES_COMMON_FIELDS);

  private static final String[] FIELDS = {"u", "e", "v", "k", "f", "p", "g", "h", "o", "w", "a", "q", "x", "j",
      "t:8.0:9.0",
      "t:4.0:2.5", "c:8.0:9.0", "c:0:0", "c:5.0:1.0", "c:4.0:2.5,oops", "r:r0", "r:r1", "r:zz"};

  /** The fields of a state with shares, and the others a fleet of several plans and configurations writes. */
  private static final String[] SHARE_FIELDS = {"u", "e", "t:8.0:9.0", "s:checkout", "s:merchant-api", "s:*",
      "s:bad name", "l:r4", "l:r5", "l:r6", "r:r4", "r:r5", "c:8.0:9.0", "k", "h", "c:4.0:2.5", "j"};

  @BeforeContainer
  static void start() {
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterContainer
  static void stop() {
    redis.close();
    System.out.println("ScriptAndJavaStepAgreeTest saw: " + SEEN);
    assertThat(SEEN).as("the sequences reached every case").containsKeys("repaired", "cut", "old news",
        "repaired j", "moved by j",
        "not counted", "refused", "held", "lone cut", "configurations > 1", "closed", "repaired r", "repaired t",
        "common path", "shares decided", "borrowed", "booked on its own share", "refused by its share", "repaired s",
        "shares folded");
    assertThat(SEEN.get("borrowed")).as("calls that borrowed another flow's tokens").isGreaterThan(50);
    assertThat(SEEN.get("common path")).as("steps on a state of one configuration, nothing cut").isGreaterThan(500);
    assertThat(SEEN.get("shares common path")).as("steps on a state of one plan, nothing cut").isGreaterThan(500);
  }

  private static void seen(String what) {
    SEEN.merge(what, 1, Integer::sum);
  }

  @Property(tries = 60)
  void theScriptAndItsJavaTwinGiveTheSameAnswers(@ForAll long seed) throws Exception {
    agree(seed, new int[] {0, 1, 2, 3}, FIELDS, 8, 0);
  }

  /**
   * The same on a fleet of one configuration (r0 and r3), so that most steps take the script's common path, with the
   * fields it reads overwritten now and then, and cuts that take the state off it.
   */
  @Property(tries = 40)
  void theCommonPathAndItsJavaTwinGiveTheSameAnswers(@ForAll long seed) throws Exception {
    agree(seed, new int[] {0, 3}, COMMON_FIELDS, 12, 60);
  }

  /**
   * The same with shares: replicas of one plan (r4, r5) most of the time, now and then one of another plan (r6) or
   * without shares (r0), whose steps fold the sub-buckets into the bucket; calls of named, unnamed and unknown flows.
   */
  @Property(tries = 40)
  void theSharesAndTheirJavaTwinGiveTheSameAnswers(@ForAll long seed) throws Exception {
    int[] replicas = new int[40]; // r6 and r0 once in 40 steps each: their configuration stays live for 30 s
    for (int i = 0; i < replicas.length; i++) {
      replicas[i] = i == 0 ? 6 : i == 1 ? 0 : 4 + i % 2;
    }
    agree(seed, replicas, SHARE_FIELDS, 10, 30);
  }

  /**
   * The same on a fleet of one plan (r4 and r5), so that most steps take the script's common path with shares, with
   * the fields it reads (the sub-buckets' and the plans' among them) overwritten now and then, and cuts.
   */
  @Property(tries = 40)
  void theSharesCommonPathAndItsJavaTwinGiveTheSameAnswers(@ForAll long seed) throws Exception {
    agree(seed, new int[] {4, 5}, SHARES_COMMON_FIELDS, 12, 60);
  }

  /** cutOneIn: 0 for a cut as often as a charge or a refund, else one step in that many. */
  private void agree(long seed, int[] replicas, String[] fields, int corruptOneIn, int cutOneIn) throws Exception {
    Random r = new Random(seed);
    String key = "agree:{" + (++run) + "}:tb";
    StepHash model = new StepHash();
    long[] lastGeneration = new long[REPLICAS.size()];
    for (int step = 0; step < 80; step++) {
      TIME.advanceMillis(r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 300 : 4_000));
      if (r.nextInt(corruptOneIn) == 0) {
        String field = fields[r.nextInt(fields.length)];
        String value = garbage(r, field);
        model.put(field, value, TIME.micros());
        redis.redisson.getMap(key, StringCodec.INSTANCE).fastPut(field, value);
      }
      int who = replicas[r.nextInt(replicas.length)];
      StepSettings replica = REPLICAS.get(who);
      BucketStep.Op op = r.nextInt(25) == 0 ? BucketStep.Op.CLOSE
          : cutOneIn > 0 && r.nextInt(cutOneIn) == 0 ? BucketStep.Op.CUT
          : BucketStep.Op.values()[r.nextInt(10) < 6 ? 0 : 1 + r.nextInt(cutOneIn > 0 ? 2 : 3)];
      double cost = new double[] {1, 1, 0.5, 2.5}[r.nextInt(4)];
      long arg = switch (op) {
        case ACQUIRE -> new long[] {0, 100_000, 5_000_000, 86_400_000_000L}[r.nextInt(4)];
        case CUT -> new long[] {0, 0, 1_000_000, 3_000_000, 86_400_000_000L}[r.nextInt(5)];
        default -> 0;
      };
      Long booked = op == BucketStep.Op.CUT ? (r.nextInt(4) == 0 ? lastGeneration[who] - 1 : lastGeneration[who])
          : null;
      if (op != BucketStep.Op.CUT && op != BucketStep.Op.CLOSE && (who == 0 || who == 3)
          && !model.hash().isEmpty() && COMMON.containsAll(model.hash().keySet())) {
        seen("common path");
      }
      if (op != BucketStep.Op.CUT && op != BucketStep.Op.CLOSE && (who == 4 || who == 5)
          && model.hash().containsKey("s:*") && SHARES_COMMON.containsAll(model.hash().keySet())) {
        seen("shares common path");
      }
      String flow = FLOWS[r.nextInt(FLOWS.length)];
      boolean hadShares = model.hash().keySet().stream().anyMatch(f -> f.startsWith("s:"));
      BucketReply expected = BucketStep.step(model, op, cost, arg, null, TIME.micros(), booked, replica, flow);
      String text = LuaScript.TOKEN_BUCKET.call(RedissonScripts.of(redis.redisson), key,
          ScriptProtocol.arguments(op, cost, arg, null, booked, replica, flow), TimeUnit.SECONDS.toNanos(5),
          System::nanoTime).text();
      String where = "seed " + seed + ", step " + step + ", " + op + " by replica " + who;
      if (expected == null) {
        assertThat(text).as(where + ": a close of a state that is gone makes none").isEqualTo("1");
        assertThat(redis.admin.call("EXISTS", key)).isEqualTo(0L);
        continue;
      }
      BucketReply actual = ScriptProtocol.reply(text);
      assertThat(actual.outcome()).as(where + ": outcome").isEqualTo(expected.outcome());
      assertThat(actual.waitMicros()).as(where + ": wait").isEqualTo(expected.waitMicros());
      assertThat(actual.remaining()).as(where + ": remaining")
          .isCloseTo(expected.remaining(), within(1e-9 * Math.max(1, Math.abs(expected.remaining()))));
      assertThat(actual.nowMicros()).as(where + ": now").isEqualTo(expected.nowMicros());
      assertThat(actual.epoch()).as(where + ": epoch").isEqualTo(expected.epoch());
      assertThat(actual.generation()).as(where + ": generation").isEqualTo(expected.generation());
      assertThat(actual.factor()).as(where + ": factor").isCloseTo(expected.factor(), within(1e-12));
      assertThat(actual.holdUntilMicros()).as(where + ": hold").isEqualTo(expected.holdUntilMicros());
      assertThat(actual.configurations()).as(where + ": configurations").isEqualTo(expected.configurations());
      assertThat(actual.repaired()).as(where + ": repaired").isEqualTo(expected.repaired());
      assertThat(actual.change()).as(where + ": the last change of generation").isEqualTo(expected.change());
      assertThat(actual.others()).as(where + ": others").isEqualTo(expected.others());
      assertThat(actual.flow()).as(where + ": flow").isEqualTo(expected.flow());
      if (hadShares && expected.flow() == null && model.hash().keySet().stream().noneMatch(f -> f.startsWith("s:"))) {
        seen("shares folded");
      }
      if (expected.flow() != null) {
        seen("shares decided");
        String asker = flow == null || !replica.shares().contains(flow + "=") ? "*" : flow;
        if (op == BucketStep.Op.ACQUIRE && expected.done() && !expected.flow().equals(asker)) {
          seen("borrowed");
        } else if (op == BucketStep.Op.ACQUIRE && expected.done() && expected.waitMicros() > 0) {
          seen("booked on its own share");
        } else if (op == BucketStep.Op.ACQUIRE && !expected.done()) {
          seen("refused by its share");
        }
      }
      if (op == BucketStep.Op.ACQUIRE) {
        if (expected.change() != null && expected.done() && lastGeneration[who] == expected.change().previous()) {
          seen("moved by j");
        }
        lastGeneration[who] = expected.generation();
      }
      if (!expected.repaired().isEmpty()) {
        seen("repaired");
        expected.repaired().forEach(f -> seen("repaired " + f));
      }
      if (op == BucketStep.Op.CUT) {
        seen(new String[] {"old news", "cut", "not counted"}[expected.outcome()]);
        if (expected.outcome() == 1 && model.hash().containsKey("p")) {
          seen("lone cut");
        }
      }
      if (op == BucketStep.Op.ACQUIRE && !expected.done()) {
        seen("refused");
      }
      if (op == BucketStep.Op.CLOSE) {
        seen("closed");
      }
      if (expected.holdUntilMicros() > expected.nowMicros()) {
        seen("held");
      }
      if (expected.configurations() > 1) {
        seen("configurations > 1");
      }
    }
  }

  /** A value that field should not hold, or an extreme one it may: both sides must read it alike. */
  private static String garbage(Random r, String field) {
    long now = TIME.micros();
    String[] any = {"nan", "inf", "-inf", "garbage", "", "1e400", "-5", "0", "0.5", "2", "1.5", "-1e300", "-6300000",
        "-10000000"};
    String[] times = {Long.toString(now + 60_000_000), Long.toString(now + 86_400_000_000L),
        Long.toString(now - 86_400_000_000L), "9223372036854775806", Long.toString(now + 500_000),
        Long.toString(now)};
    boolean time = List.of("u", "e", "k", "g", "h", "o").contains(field) || field.startsWith("c:");
    if (field.equals("a") || field.equals("q")) {
      return new String[] {"1", "3", "40", "1000", "1001", "-1", "x"}[r.nextInt(7)];
    }
    if (field.startsWith("r:")) {
      String[] ids = {"8.0:9.0", "4.0:2.5", "10.0:10.0,30.0:0.5", "0:0", "8.0:9.0/", "garbage"};
      return ids[r.nextInt(ids.length)] + (r.nextInt(5) == 0 ? "" : "/" + times[r.nextInt(times.length)]);
    }
    if (field.startsWith("s:")) {
      String[] asked = {Long.toString(now), Long.toString(now - 400_000), "0", Long.toString(now + 5_000_000),
          "-1", "x"};
      return new String[] {"1 4.333333333333333 5", "-3 2.6666666666666665 3", "nan 1 1", "5 4 1e13", "2 1 0",
          "x", "", "1 2", "0.5 1.5 1", "-1e300 4 4", "3 2 1"}[r.nextInt(11)] + " " + asked[r.nextInt(asked.length)];
    }
    if (field.startsWith("l:")) {
      return new String[] {"*=1.0,checkout=5.0,merchant-api=3.0", "*=1.0,checkout=1.0", "garbage", ""}[r.nextInt(4)];
    }
    if (field.equals("j")) { // another generation's (dropped), out of range (repaired), or not one at all
      String g = Long.toString(now);
      return new String[] {"1:2:3:0.85:0.7225:3:4", "5:4:3:0.5:0.5:3:4", "1:" + g + ":3:2:0.5:3:4",
          "1:" + g + ":5:0.5:0.5:3:4", "1:" + g + ":3:0.5:nan:3:4", "1:" + g + ":3:0.5:0.5:9:4", "x", "",
          "1:2:3:0.5:0.5:3"}[r.nextInt(9)];
    }
    if (field.equals("w")) {
      return new String[] {"r0", "r1", "r2", "bad id!", ""}[r.nextInt(5)];
    }
    return time && r.nextBoolean() ? times[r.nextInt(times.length)] : any[r.nextInt(any.length)];
  }
}
