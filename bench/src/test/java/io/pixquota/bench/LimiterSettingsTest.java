package io.pixquota.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RedissonClient;

/**
 * Every peer is set to the same burst B and rate r: 12 blocking takes at B = 4, r = 20/s spread over (12 - B) / r =
 * 0.4 s, against a real Redis. A fixed window (resilience4j) may admit two bursts back to back at a window's edge,
 * which its lower bound allows.
 */
@ExtendWith(RedisExtension.class)
class LimiterSettingsTest {
  @ParameterizedTest
  @EnumSource(value = Limiter.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void twelveTakesAtBurstFourAndTwentyPerSecondSpreadOverTheIdealTime(Limiter limiter, TestRedis redis)
      throws Exception {
    RedissonClient redisson = redis.newRedisson();
    if (limiter.onLettuce()) {
      Limiter.useLettuceAt(redis.uri().toString());
    }
    try {
      spreadOverTheIdealTime(limiter, limiter.open(redisson, redis.keyPrefix() + limiter.label(), 4, 20));
    } finally {
      Limiter.closeLettuce();
    }
  }

  private static void spreadOverTheIdealTime(Limiter limiter, Limiter.Gate gate) throws Exception {
    // timed from before the first take: the bucket starts (full) during that call, however long the call takes
    long first = System.nanoTime();
    long last = 0;
    for (int i = 0; i < 12; i++) {
      gate.await();
      last = System.nanoTime();
    }
    double seconds = (last - first) / 1e9;
    double lowest = limiter == Limiter.LOCAL ? (12 - 2 * 4) / 20.0 : (12 - 4) / 20.0;
    // With shares (5, 3 and 1 of 20/s, the flows' calls in turn, each flow asking), a flow borrows only what another
    // keeps beyond its own next call: the last of "*"'s four calls comes on its own share, burst 1 + 1/9 at 20/9 per
    // second, (4 - 10/9) / (20/9) = 1.3 s after the start
    double ideal = limiter == Limiter.OURS_SHARES ? (4 - 10 / 9.0) / (20 / 9.0) : 0.4;
    assertThat(seconds).as("%s: start to 12th admission", limiter).isBetween(lowest - 0.015, ideal + 0.6);
  }

  @ParameterizedTest
  @EnumSource(value = Limiter.class, names = {"BUCKET4J", "RRATELIMITER", "LOCAL"})
  void aPeerThatNeedsAWholeBurstSaysSoBeforeAnyIo(Limiter limiter) {
    assertThatThrownBy(() -> limiter.open(null, "x", 8.5, 9))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity must be a whole number >= 1 for this limiter, but was 8.5");
  }
}
