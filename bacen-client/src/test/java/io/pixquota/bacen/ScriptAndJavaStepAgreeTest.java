package io.pixquota.bacen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.pixquota.bacen.internal.BucketStep;
import io.pixquota.bacen.internal.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * {@code token_bucket.lua} and {@link BucketStep} (its Java twin, which the local bucket and the simulations run on)
 * give the same answer, element for element, to random sequences of operations from replicas with different
 * configurations, leases and rate adaptations: acquire, charge, refund, and cuts with and without a Retry-After,
 * with time moving by 0 to 4 s between steps (so configurations lapse, holds end and keys expire). Redis's own clock
 * follows the test's ({@link io.pixquota.testing.FakeClockRedis}), so both sides see the same time.
 */
class ScriptAndJavaStepAgreeTest {
  private static final FakeTime TIME = FakeTime.manual(10_000);
  private static RedisOnFakeTime redis;
  private static int run;

  /** A replica's settings: its limits, its lease and its rate adaptation. */
  private record Replica(List<BucketStep.LimitArgs> limits, long leaseMicros, BucketStep.Adaptation adaptation) {}

  private static final List<Replica> REPLICAS = List.of(
      new Replica(List.of(new BucketStep.LimitArgs("8.0", "9.0")), 30_000_000,
          new BucketStep.Adaptation(0.85, 0.005, 0.25)),
      new Replica(List.of(new BucketStep.LimitArgs("10.0", "10.0"), new BucketStep.LimitArgs("30.0", "0.5")),
          2_000_000, new BucketStep.Adaptation(0.5, 0.1, 0.3)),
      new Replica(List.of(new BucketStep.LimitArgs("4.0", "2.5")), 5_000_000,
          new BucketStep.Adaptation(0.9, 0.02, 0.5)));

  @BeforeContainer
  static void start() {
    redis = new RedisOnFakeTime(TIME);
  }

  @AfterContainer
  static void stop() {
    redis.close();
  }

  @Property(tries = 60)
  void theScriptAndItsJavaTwinGiveTheSameAnswers(@ForAll long seed) throws Exception {
    Random r = new Random(seed);
    String key = "agree:{" + (++run) + "}:tb";
    BucketStep.State model = new BucketStep.State();
    long[] lastGeneration = new long[REPLICAS.size()];
    for (int step = 0; step < 80; step++) {
      TIME.advanceMillis(r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 300 : 4_000));
      int who = r.nextInt(REPLICAS.size());
      Replica replica = REPLICAS.get(who);
      BucketStep.Op op = BucketStep.Op.values()[r.nextInt(10) < 6 ? 0 : 1 + r.nextInt(3)];
      double cost = new double[] {1, 1, 0.5, 2.5}[r.nextInt(4)];
      long arg = switch (op) {
        case ACQUIRE -> new long[] {0, 100_000, 5_000_000, 86_400_000_000L}[r.nextInt(4)];
        case CUT -> new long[] {0, 0, 1_000_000, 3_000_000}[r.nextInt(4)];
        default -> 0;
      };
      Long booked = op == BucketStep.Op.CUT ? (r.nextInt(4) == 0 ? lastGeneration[who] - 1 : lastGeneration[who])
          : null;
      BucketStep.Reply expected = BucketStep.step(model, op, cost, arg, null, TIME.micros(), replica.leaseMicros(),
          replica.adaptation(), booked, replica.limits());
      BucketStep.Reply actual = script(key, op, cost, arg, booked, replica);
      String where = "seed " + seed + ", step " + step + ", " + op + " by replica " + who;
      assertThat(actual.done()).as(where + ": done").isEqualTo(expected.done());
      assertThat(actual.waitMicros()).as(where + ": wait").isEqualTo(expected.waitMicros());
      assertThat(actual.remaining()).as(where + ": remaining")
          .isCloseTo(expected.remaining(), within(1e-9 * Math.max(1, Math.abs(expected.remaining()))));
      assertThat(actual.nowMicros()).as(where + ": now").isEqualTo(expected.nowMicros());
      assertThat(actual.epoch()).as(where + ": epoch").isEqualTo(expected.epoch());
      assertThat(actual.generation()).as(where + ": generation").isEqualTo(expected.generation());
      assertThat(actual.factor()).as(where + ": factor").isCloseTo(expected.factor(), within(1e-12));
      assertThat(actual.holdUntilMicros()).as(where + ": hold").isEqualTo(expected.holdUntilMicros());
      assertThat(actual.configurations()).as(where + ": configurations").isEqualTo(expected.configurations());
      assertThat(actual.others()).as(where + ": others").isEqualTo(expected.others());
      if (op == BucketStep.Op.ACQUIRE) {
        lastGeneration[who] = expected.generation();
      }
    }
  }

  private static BucketStep.Reply script(String key, BucketStep.Op op, double cost, long arg, Long booked,
      Replica replica) throws Exception {
    List<String> mine = new ArrayList<>();
    for (BucketStep.LimitArgs l : replica.limits()) {
      mine.add(l.capacity() + ":" + l.refill());
    }
    mine.sort(null);
    String settings = replica.leaseMicros() + " " + replica.adaptation().decrease() + " "
        + replica.adaptation().increasePerSecond() + " " + replica.adaptation().floor() + " " + String.join(",", mine);
    Object[] args = {op.name().toLowerCase(Locale.ROOT), Double.toString(cost), Long.toString(arg), "",
        booked == null ? "" : Long.toString(booked), settings};
    return BucketStep.Reply.parse(LuaScript.TOKEN_BUCKET.call(redis.redisson, key, args, TimeUnit.SECONDS.toNanos(5),
        System::nanoTime).text());
  }
}
