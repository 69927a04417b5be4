package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * The participant's reserve end to end, against the judge's DICT (later counting, category F: the participant's
 * anti-scan bucket 250 at 25 a minute, a 404 costing it 3) and the mirror in a real Redis. A scanner that takes a new
 * end-user id for every lookup, which no user bucket stops, gets the part of the bucket above the reserve and no
 * more, whether or not it first buys standing with keys that exist; a payer with standing is served from the reserve;
 * the reserve's refusals after the first cost no round trip; DICT answers no 429. Each scenario on a fresh DICT and
 * mirror; a run takes about a second, in which the bucket refills by less than a third of a 404's cost.
 */
@ExtendWith(RedisExtension.class)
class DictReserveTest {
  private static final String SCANNED = "@scan.example.com";
  private MockBacen mock;
  private RedissonClient redisson;
  private final List<DictClient> clients = new ArrayList<>();
  private SimpleMeterRegistry registry;
  private int scenario;

  @BeforeEach
  void start(TestRedis redis) throws Exception {
    mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.parse("later:F")).build());
    redisson = redis.newRedisson();
  }

  @AfterEach
  void stop() {
    clients.forEach(DictClient::close);
    mock.close();
    redisson.shutdown();
  }

  /** A client on a fresh DICT and a fresh mirror. */
  private DictClient fresh(TestRedis redis) {
    mock.reset();
    registry = new SimpleMeterRegistry();
    DictClient c = DictClient.builder(DictClientConfig.builder().baseUrl(mock.dictUrl()).participant("12345678")
        .payerSecret("a-secret-of-the-psp-0001").policies(DictPolicies.later('F'))
        .keyPrefix(redis.keyPrefix() + (++scenario) + ":").build()).redisson(redisson).meterRegistry(registry)
        .build();
    clients.add(c);
    return c;
  }

  /** The outcome of one lookup, as a scanner counts it. */
  private static String lookup(DictClient dict, String key, String payer) {
    return lookup(dict, DictLookup.of(key, payer));
  }

  private static String lookup(DictClient dict, DictLookup l) {
    try {
      dict.getEntry(l);
      return "found";
    } catch (DictNotFoundException e) {
      return "not found";
    } catch (DictReserveRefusedException e) {
      return "reserve";
    } catch (DictUserRefusedException e) {
      return "user";
    } catch (DictThrottledException e) {
      return "no slot"; // the bucket below the reserve: only with the reserve broken
    }
  }

  /** Scans under a new id per lookup until the reserve has refused 20 in a row; the 404s DICT served it. */
  private static int unknownScanner(DictClient dict) {
    int notFound = 0;
    for (int n = 0, refusedInARow = 0; refusedInARow < 20; n++) {
      String o = lookup(dict, "k" + n + SCANNED, "rotating-" + n);
      notFound += o.equals("not found") ? 1 : 0;
      refusedInARow = o.equals("reserve") ? refusedInARow + 1 : 0;
    }
    return notFound;
  }

  @SuppressWarnings("unchecked")
  private long dict429s() {
    return ((Map<String, Map<String, Long>>) mock.dictStats().get("policies")).values().stream()
        .mapToLong(p -> p.get("refused")).sum();
  }

  @Test
  void aRotatingScannerGetsTheBucketAboveTheReserveAndAPayerWithStandingIsServedFromIt(TestRedis redis) {
    DictClient dict = fresh(redis);
    for (int i = 0; i < 3; i++) { // standing 3: the price of a lookup in the reserve (a 404 costs 3 found ones)
      assertThat(lookup(dict, "user" + i + "@example.com", "maria")).isEqualTo("found");
    }
    int scanned = unknownScanner(dict);
    assertThat(scanned).as("(250 - 3 - 125) / 3 = 40.7, and the refill during the run").isBetween(40, 42);
    assertThat(registry.get("bacen.dict.refused.local").tag("kind", "reserve").counter().count())
        .as("after the reserve's first refusal, the next ones are decided here").isGreaterThanOrEqualTo(19);
    for (int i = 0; i < 30; i++) {
      assertThat(lookup(dict, "user" + (i % 3) + "@example.com", "maria")).as("lookup %d of the payer with standing",
          i).isEqualTo("found");
    }
    assertThat(lookup(dict, DictLookup.of("user5@example.com", "a-newcomer").withTrust(DictLookup.Trust.TRUSTED)))
        .as("a lookup the caller vouches for is not held to the reserve").isEqualTo("found");
    assertThatThrownBy(() -> dict.getEntry(DictLookup.of("user1@example.com", "maria")
        .withTrust(DictLookup.Trust.RISKY))).isInstanceOf(DictReserveRefusedException.class)
        .hasMessageContaining("RISKY").satisfies(e -> assertThat(((DictReserveRefusedException) e).reason())
            .isEqualTo(DictReserveRefusedException.Reason.RISKY));
    assertThat(dict429s()).as("DICT's 429s").isZero();
    assertThat(registry.get("bacen.dict.reserve.refused").tag("reason", "no-standing")
        .tag("policy", DictPolicies.PARTICIPANT_ANTISCAN).counter().count()).isGreaterThanOrEqualTo(20);
  }

  /**
   * A scanner that first looks up keys that exist under each new id (one, or the three that buy a lookup in the
   * reserve, all of them while the bucket is above it) gets no more 404s than one that never does.
   */
  @Test
  void aScannerThatBuysStandingWithFoundKeysGetsNoMoreThanAnUnknownPayersShare(TestRedis redis) {
    int unknown = unknownScanner(fresh(redis));

    DictClient dict = fresh(redis);
    int oneFound = 0;
    for (int id = 0, idsWithout404 = 0; idsWithout404 < 10; id++) {
      String payer = "buyer-" + id;
      lookup(dict, "user" + (id % 900) + "@example.com", payer);
      int before = oneFound;
      for (int k = 0; k < 10 && lookup(dict, "b" + id + "-" + k + SCANNED, payer).equals("not found"); k++) {
        oneFound++;
      }
      idsWithout404 = oneFound == before ? idsWithout404 + 1 : 0;
    }

    dict = fresh(redis);
    List<String> warmed = new ArrayList<>();
    for (int id = 0; ; id++) { // phase 1: three found keys under each new id, while the reserve lets them through
      String payer = "patient-" + id;
      boolean all = true;
      for (int k = 0; k < 3 && all; k++) {
        all = lookup(dict, "user" + ((id * 3 + k) % 900) + "@example.com", payer).equals("found");
      }
      if (!all) {
        break;
      }
      warmed.add(payer);
    }
    int bought = 0;
    for (String payer : warmed) { // phase 2: each warmed id scans until refused
      for (int k = 0; k < 10 && lookup(dict, payer + "-" + k + SCANNED, payer).equals("not found"); k++) {
        bought++;
      }
    }
    System.out.printf("404s served to a rotating scanner: unknown ids %d, one found key per id %d, three found "
        + "keys per id (%d ids) %d%n", unknown, oneFound, warmed.size(), bought);
    assertThat(oneFound).as("one found key per id").isLessThanOrEqualTo(unknown + 1);
    assertThat(bought).as("three found keys per id, bought above the reserve").isLessThanOrEqualTo(unknown + 1);
    assertThat(dict429s()).isZero();
  }
}
