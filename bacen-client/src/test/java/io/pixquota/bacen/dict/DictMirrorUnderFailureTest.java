package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.harness.PrivateRedisServer;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.store.LocalBucketGroup;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The mirror when what it reads cannot be trusted or what it writes cannot land: DICT's 429 for a user it has in
 * debt, a {@code GET /policies} with numbers out of bounds, and Redis frozen while an answer's refund is owed.
 */
class DictMirrorUnderFailureTest {
  static final String ISPB = "12345678";
  static final String SECRET = "a-secret-of-the-psp-0001";

  private static DictClientConfig.Builder config(URI dict) {
    return DictClientConfig.builder().baseUrl(dict).participant(ISPB).payerSecret(SECRET)
        .policies(DictPolicies.later('F'));
  }

  @Test
  void a429ForAUserInDebtLowersTheMirrorBelowZeroSoTheUserIsRefusedLocallyAfterwards() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.later('F'))
            .build())) {
      RedissonClient redisson = Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
      String hex = new PayerIds(SECRET).of("12345678909").hex();
      HttpClient plain = HttpClient.newHttpClient();
      for (int i = 0; i < 5; i++) { // another system spends this user's bucket at DICT: the mirror never saw it
        assertThat(plain.send(HttpRequest.newBuilder(mock.url().resolve("/api/v1/entries/gone" + i
            + "@example.com")).header("PI-RequestingParticipant", ISPB).header("PI-PayerId", hex)
            .header("PI-EndToEndId", "E12345678202612011200aaaaaaaaaa" + i).GET().build(),
            HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(404);
      }
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (DictClient dict = DictClient.builder(config(mock.dictUrl()).build()).redisson(redisson)
          .meterRegistry(registry).build()) {
        assertThatThrownBy(() -> dict.getEntry("user1@example.com", "12345678909"))
            .isInstanceOfSatisfying(DictRateLimitedException.class, e -> assertThat(e.policy())
                .isEqualTo(DictPolicies.USER_ANTISCAN));
        Awaits.until("the mirror lowered to minus one worst case", Duration.ofSeconds(5), () -> {
          String v = (String) redisson.getBucket("pixquota:{dict-" + ISPB + "}:b:u:"
              + new PayerIds(SECRET).of("12345678909").bucket(), StringCodec.INSTANCE).get();
          return v != null && Double.parseDouble(v.split(" ")[0]) < -19;
        });
        assertThatThrownBy(() -> dict.getEntry("user1@example.com", "12345678909"))
            .isInstanceOfSatisfying(DictUserRefusedException.class, e -> assertThat(e.retryAfter())
                .as("21 tokens at 2 a minute").isBetween(Duration.ofSeconds(600), Duration.ofSeconds(631)));
        assertThat(registry.get("bacen.dict.provider.refused").tag("policy", DictPolicies.USER_ANTISCAN).counter()
            .count()).isEqualTo(1);
      } finally {
        redisson.shutdown();
      }
    }
  }

  @Test
  void aPoliciesAnswerOutOfBoundsKeepsTheTablesSizes() throws Exception {
    try (MockWebServer server = new MockWebServer()) {
      server.start();
      server.enqueue(new MockResponse.Builder().code(200).setHeader("Content-Type", "application/xml")
          .body("<ListPoliciesResponse><Policies><Policy><Name>ENTRIES_READ_PARTICIPANT_ANTISCAN</Name><Scope>PSP"
              + "</Scope><AvailableTokens>5</AvailableTokens><Capacity>1e15</Capacity><RefillTokens>0</RefillTokens>"
              + "<RefillPeriodSec>60</RefillPeriodSec></Policy><Policy><Name>ENTRIES_READ</Name><Scope>PSP</Scope>"
              + "<AvailableTokens>100</AvailableTokens><Capacity>1000</Capacity><RefillTokens>100</RefillTokens>"
              + "<RefillPeriodSec>60</RefillPeriodSec></Policy><Policy><Name>SOMETHING_ELSE</Name><Scope>PSP"
              + "</Scope><Capacity>1</Capacity><RefillTokens>1</RefillTokens><RefillPeriodSec>1</RefillPeriodSec>"
              + "</Policy></Policies></ListPoliciesResponse>").build());
      try (DictClient dict = DictClient.builder(config(URI.create(server.url("/").toString())).build())
          .bucketGroup(new LocalBucketGroup("dict", System::nanoTime)).build()) {
        DictPolicies table = dict.warmUp();
        assertThat(table.policy(DictPolicies.PARTICIPANT_ANTISCAN).capacity()).as("1e15 and a refill of 0: kept")
            .isEqualTo(250);
        assertThat(table.policy(DictPolicies.ENTRIES_READ).capacity()).as("in bounds: DICT's word").isEqualTo(1000);
        assertThat(table.policies()).hasSize(3);
      }
    }
  }

  @Test
  void refundsOwedWhileRedisIsFrozenAreKeptAndLandOnceItAnswers() throws Exception {
    try (PrivateRedisServer redis = PrivateRedisServer.start();
        MockBacen mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.later('F'))
            .build())) {
      RedissonClient redisson = Redisson.create(TestRedis.redissonConfig(redis.uri().toString()));
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (DictClient dict = DictClient.builder(config(mock.dictUrl()).flushDelay(Duration.ofSeconds(1))
          .redisTimeout(Duration.ofMillis(300)).build()).redisson(redisson).meterRegistry(registry).build()) {
        redis.pause();
        try {
          assertThatThrownBy(() -> dict.getEntry("user1@example.com", "another-user"))
              .isInstanceOf(DictThrottledException.class).hasMessageContaining("not sent");
        } finally {
          redis.resume();
        }
        DictEntry e = dict.getEntry("user1@example.com", "someone"); // booked 20 at the user, owes 19 back
        redis.pause();
        try {
          Awaits.until("the flush, 1 s after the answer, sent to the frozen Redis", Duration.ofSeconds(10),
              () -> registry.get("bacen.dict.mirror.round.trips").tag("kind", "flush").counter().count() >= 1);
          Awaits.until("the flush's 300 ms timeout: failed, as far as the client knows", Duration.ofSeconds(10),
              () -> registry.get("bacen.dict.refunds.dropped").functionCounter().count() >= 2);
        } finally {
          redis.resume(); // Redis runs the command it had received
        }
        String key = "pixquota:{dict-" + ISPB + "}:b:u:" + new PayerIds(SECRET).of("someone").bucket();
        Awaits.until("the refund applied by Redis once it answered: 100 - 20 + 19", Duration.ofSeconds(10),
            () -> tokens(redisson, key) >= 99);
        Thread.sleep(2_000); // past the flush's retry (1 s)
        assertThat(tokens(redisson, key)).as("not given twice: 99 and 2 s of refill at 2 a minute, not 100")
            .isLessThan(99.2);
        assertThat(registry.get("bacen.dict.refunds.dropped").functionCounter().count())
            .as("the user's 19 and the participant's 2, not sent again").isEqualTo(2);
        assertThat(registry.get("bacen.dict.credits").tag("outcome", "dropped").functionCounter().count())
            .as("its credit was in the same round trip").isEqualTo(1);
        assertThat(dict.paymentSettled(e.endToEndId())).as("Redis remembered the credit all the same").isTrue();
      } finally {
        redisson.shutdown();
      }
    }
  }

  private static double tokens(RedissonClient redisson, String key) {
    String v = (String) redisson.getBucket(key, StringCodec.INSTANCE).get();
    return v == null ? 100 : Double.parseDouble(v.split(" ")[0]);
  }
}
