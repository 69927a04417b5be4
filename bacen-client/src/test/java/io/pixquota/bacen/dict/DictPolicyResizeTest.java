package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * DICT moves the participant to a smaller category while the fleet runs: the mirror follows DICT's headers down, but
 * refills at the old category's rate, so DICT refuses; the first 429 on the participant's policy makes the client
 * read DICT's GET /policies again, and from then on the mirror refuses at home what DICT would. Counted at the judge.
 */
@ExtendWith(RedisExtension.class)
class DictPolicyResizeTest {
  static final String ISPB = "12345678";

  @Test
  void aParticipantMovedToASmallerCategoryCostsAFew429sNotOneEveryRefill(TestRedis redis) throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RedissonClient redisson = redis.newRedisson();
    try (MockBacen mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.later('E'))
            .build());
        DictClient dict = DictClient.builder(DictClientConfig.builder().baseUrl(mock.dictUrl()).participant(ISPB)
            .payerSecret("a-secret-of-the-psp-0001").keyPrefix(redis.keyPrefix())
            .policies(DictPolicies.later('E')).reserve(DictReserve.none()).maxWait(Duration.ofMillis(200)).build())
            .redisson(redisson).meterRegistry(registry).build()) {
      assertThat(dict.warmUp().policy(DictPolicies.PARTICIPANT_ANTISCAN).capacity()).isEqualTo(1000);
      mock.dictCategory('G'); // 100 at 5 a minute: the mirror still refills at E's 500 a minute
      long firstRefusalNanos = 0;
      int payer = 0;
      while (firstRefusalNanos == 0 || System.nanoTime() - firstRefusalNanos < 3_000_000_000L) {
        try {
          dict.getEntry("user1@example.com", "customer-" + payer++);
        } catch (DictRateLimitedException e) {
          assertThat(e.getMessage()).contains(DictPolicies.PARTICIPANT_ANTISCAN);
          firstRefusalNanos = firstRefusalNanos == 0 ? System.nanoTime() : firstRefusalNanos;
        } catch (DictException e) {
          assertThat(firstRefusalNanos).as("refused at home only once DICT refused: %s", e.getMessage())
              .isPositive();
        }
        assertThat(firstRefusalNanos > 0 || payer < 5_000).as("DICT's 100 tokens spent within 5,000 lookups: %s",
            mock.dictStats().get("policies")).isTrue();
      }
      // 3 s of lookups after the first 429: at E's refill the mirror would let one through every ~0.4 s, and DICT
      // refuse it; once read again, the lookups in flight while it was read at most
      assertThat(refused(mock)).as("DICT's 429s on the participant's bucket").isBetween(1L, 3L);
      Awaits.until("the client read DICT's policies again", Duration.ofSeconds(5),
          () -> dict.policies().policy(DictPolicies.PARTICIPANT_ANTISCAN).capacity() == 100);
      assertThat(dict.policies().policy(DictPolicies.PARTICIPANT_ANTISCAN).ratePerSecond(
          DictPolicy.PayerType.NATURAL_PERSON)).isEqualTo(5.0 / 60);
      assertThat(registry.get("bacen.dict.policies.reread").tag("outcome", "read").counter().count())
          .as("read again once: at most every %s", DictPolicyRefresh.AT_MOST_EVERY).isEqualTo(1);
    } finally {
      redisson.shutdown();
    }
  }

  @SuppressWarnings("unchecked")
  private static long refused(MockBacen mock) {
    return ((Map<String, Map<String, Long>>) mock.dictStats().get("policies"))
        .get(ISPB + "|" + DictPolicies.PARTICIPANT_ANTISCAN).get("refused");
  }
}
