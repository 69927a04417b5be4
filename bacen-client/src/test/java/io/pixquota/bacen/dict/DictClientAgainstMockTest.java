package io.pixquota.bacen.dict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.KeysScanOptions;
import org.redisson.client.codec.StringCodec;

/**
 * The DICT client end to end: the judge's DICT over HTTP (sharing no code with the SDK), the mirror in a real Redis.
 * Each test reads the judge's audit to see what really reached DICT.
 */
@ExtendWith(RedisExtension.class)
class DictClientAgainstMockTest {
  static final String ISPB = "12345678";
  static final String CPF = "12345678909";
  private MockBacen mock;
  private DictClient dict;
  private RedissonClient redisson;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final HttpClient plain = HttpClient.newHttpClient();

  private DictClient start(TestRedis redis, String mockCounting, DictClientConfig.Builder config) throws Exception {
    mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.parse(mockCounting)).build());
    redisson = redis.newRedisson();
    dict = DictClient.builder(config.baseUrl(mock.dictUrl()).participant(ISPB).payerSecret("a-secret-of-the-psp-0001")
        .keyPrefix(redis.keyPrefix()).build()).redisson(redisson).meterRegistry(registry).build();
    return dict;
  }

  private static DictClientConfig.Builder later() {
    return DictClientConfig.builder().policies(DictPolicies.later('F'));
  }

  @AfterEach
  void stop() {
    if (dict != null) {
      dict.close();
    }
    if (mock != null) {
      mock.close();
    }
  }

  @SuppressWarnings("unchecked")
  private Map<String, Map<String, Long>> payers() {
    return (Map<String, Map<String, Long>>) mock.dictStats().get("payers");
  }

  @SuppressWarnings("unchecked")
  private Map<String, Long> policy(String name) {
    return ((Map<String, Map<String, Long>>) mock.dictStats().get("policies")).get(ISPB + "|" + name);
  }

  private double counter(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  void aLookupReturnsTheEntryAndDictSeesOnlyThePayersPseudonym(TestRedis redis) throws Exception {
    start(redis, "v1.2.0", DictClientConfig.builder());
    DictEntry e = dict.getEntry("user7@example.com", CPF);
    assertThat(e.key()).isEqualTo("user7@example.com");
    assertThat(e.keyType()).isEqualTo(DictKey.Type.EMAIL);
    assertThat(e.participant()).isEqualTo(ISPB);
    assertThat(e.endToEndId()).matches("E" + ISPB + "[0-9]{12}[0-9A-Za-z]{11}");
    assertThat(e.toString()).doesNotContain(e.endToEndId()).doesNotContain(e.ownerTaxIdNumber());
    assertThat(payers()).hasSize(1);
    String payer = payers().keySet().iterator().next();
    assertThat(payer).matches(ISPB + "\\|[0-9a-f]{64}").doesNotContain(CPF);
    assertThat(dict.getEntry("user8@example.com", CPF).key()).isEqualTo("user8@example.com");
    assertThat(payers()).as("the same user, the same pseudonym").containsOnlyKeys(payer);
    assertThat(registry.get("bacen.throttle.wait").tag("quota", "dict").timer().count())
        .as("the lookups waited in the throttle, as API Pix's calls do").isEqualTo(2);
  }

  @Test
  void aScannerIsRefusedAtOnceOnceItsBucketIsSpentAndDictNeverSeesTheRefusedLookups(TestRedis redis)
      throws Exception {
    start(redis, "later:F", later());
    for (int i = 0; i < 5; i++) {
      String key = "nobody" + i + "@example.com";
      assertThatThrownBy(() -> dict.getEntry(key, CPF)).isInstanceOf(DictNotFoundException.class);
    }
    long before = System.nanoTime();
    assertThatThrownBy(() -> dict.getEntry("nobody9@example.com", CPF))
        .isInstanceOfSatisfying(DictUserRefusedException.class, e -> {
          assertThat(e.policy()).isEqualTo(DictPolicies.USER_ANTISCAN);
          assertThat(e.retryAfter()).as("1 token at 2 per minute").isBetween(Duration.ofSeconds(29),
              Duration.ofSeconds(30));
          assertThat(e.getMessage()).contains("try again in 30 s").contains("not sent");
        });
    assertThat(Duration.ofNanos(System.nanoTime() - before)).as("refused without waiting")
        .isLessThan(Duration.ofSeconds(2));
    Map<String, Long> scanner = payers().values().iterator().next();
    assertThat(scanner).containsEntry("lookups", 5L).containsEntry("notFound", 5L).containsEntry("refused", 0L);
    assertThat(policy(DictPolicies.PARTICIPANT_ANTISCAN)).as("5 x 3 at the participant, nothing more")
        .containsEntry("charged", 15L);
    assertThat(counter("bacen.dict.refused", "policy", DictPolicies.USER_ANTISCAN, "scope", "USER")).isEqualTo(1);
    assertThat(dict.getEntry("user1@example.com", "another-customer").key()).as("another user is served")
        .isEqualTo("user1@example.com");
  }

  @Test
  void aSettledPaymentCreditsTheLookupOnceForTheWholeFleet(TestRedis redis) throws Exception {
    start(redis, "later:F", later().flushDelay(Duration.ofMillis(50)));
    DictEntry e = dict.getEntry("user3@example.com", CPF);
    String credit = redis.keyPrefix() + "{dict-" + ISPB + "}:c:" + e.endToEndId();
    Awaits.until("the lookup's credit remembered (it rides on the next lookup, or a flush after 50 ms)",
        Duration.ofSeconds(5), () -> redisson.getBucket(credit).isExists());
    try (DictClient other = DictClient.builder(later().baseUrl(mock.dictUrl()).participant(ISPB)
        .payerSecret("a-secret-of-the-psp-0001").keyPrefix(redis.keyPrefix()).build()).redisson(redisson).build()) {
      assertThat(other.paymentSettled(e.endToEndId())).as("another replica finds the lookup's credit").isTrue();
      assertThat(dict.paymentSettled(e.endToEndId())).as("once").isFalse();
    }
    assertThat(dict.paymentSettled("E12345678202612011200zzzzzzzzzzz")).as("an unknown lookup").isFalse();
    assertThat(counter("bacen.dict.credits", "outcome", "redeemed")).isZero(); // the other replica's registry
    assertThat(counter("bacen.dict.credits", "outcome", "unknown")).isEqualTo(2);
    List<String> left = new ArrayList<>();
    redisson.getKeys().getKeys(KeysScanOptions.defaults().pattern(redis.keyPrefix() + "*")).forEach(left::add);
    assertThat(left).as("every bucket full again: 100 - 20 + 19 + 1 at the user, 250 - 3 + 2 + 1 at the "
        + "participant; only the payer's key stays, for its standing").singleElement().asString().contains(":b:u:");
    assertThat((String) redisson.getBucket(left.get(0), StringCodec.INSTANCE).get())
        .as("full, standing 1 for the found key + 3 for the settled payment").matches("100 \\d+\\.4");
  }

  @Test
  void aKeyThatAnswered404IsNotAskedAgainWithinTheNegativeCache(TestRedis redis) throws Exception {
    start(redis, "later:F", later().negativeCacheTtl(Duration.ofSeconds(30)));
    assertThatThrownBy(() -> dict.getEntry("gone@example.com", CPF))
        .isInstanceOfSatisfying(DictNotFoundException.class, e -> assertThat(e.cached()).isFalse());
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> dict.getEntry("gone@example.com", "someone-else"))
          .isInstanceOfSatisfying(DictNotFoundException.class, e -> assertThat(e.cached()).isTrue());
    }
    assertThat(payers().values().stream().mapToLong(p -> p.get("lookups")).sum()).isEqualTo(1);
    assertThat(counter("bacen.dict.lookups", "outcome", "not_found_cached")).isEqualTo(3);
  }

  @Test
  void warmUpTakesDictsPoliciesAndTheHeadersLowerTheMirrorAfterTrafficItDidNotSee(TestRedis redis)
      throws Exception {
    start(redis, "later:H", later());
    DictPolicies table = dict.warmUp();
    assertThat(table.policy(DictPolicies.PARTICIPANT_ANTISCAN).capacity()).as("DICT's category H, not F")
        .isEqualTo(50);
    for (int i = 0; i < 4; i++) { // another system on the participant's certificate: 4 x 3 the mirror never saw
      HttpResponse<String> r = plain.send(HttpRequest.newBuilder(mock.url().resolve("/api/v1/entries/none" + i
          + "@example.com")).header("PI-RequestingParticipant", ISPB).header("PI-PayerId", "f00" + i)
          .header("PI-EndToEndId", "E12345678202612011200aaaaaaaaaa" + i).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(404);
    }
    dict.getEntry("user1@example.com", CPF);
    String key = redis.keyPrefix() + "{dict-" + ISPB + "}:b:" + DictPolicies.PARTICIPANT_ANTISCAN;
    Awaits.until("the mirror lowered to what DICT said remains (50 - 12 - 1 = 37)", Duration.ofSeconds(5),
        () -> {
          Object v = redisson.getBucket(key, org.redisson.client.codec.StringCodec.INSTANCE).get();
          return v != null && Double.parseDouble(((String) v).split(" ")[0]) < 38;
        });
    assertThat(registry.get("bacen.dict.provider.remaining").tags("policy", DictPolicies.PARTICIPANT_ANTISCAN)
        .gauge().value()).isEqualTo(37);
  }

  @Test
  void asyncLookupsCompleteOnTheCallbackExecutorWithTheSameOutcomes(TestRedis redis) throws Exception {
    ExecutorService callbacks = Executors.newSingleThreadExecutor(r -> new Thread(r, "app-callbacks"));
    try {
      mock = MockBacen.start(MockConfig.builder().dict(io.pixquota.mock.DictPolicies.later('F')).build());
      redisson = redis.newRedisson();
      dict = DictClient.builder(later().baseUrl(mock.dictUrl()).participant(ISPB)
          .payerSecret("a-secret-of-the-psp-0001").keyPrefix(redis.keyPrefix()).build()).redisson(redisson)
          .callbackExecutor(callbacks).build();
      String[] thread = new String[1];
      DictEntry e = dict.getEntryAsync(DictLookup.of("user2@example.com", CPF)).thenApply(entry -> {
        thread[0] = Thread.currentThread().getName();
        return entry;
      }).join();
      assertThat(e.key()).isEqualTo("user2@example.com");
      assertThat(thread[0]).isEqualTo("app-callbacks");
      for (int i = 0; i < 5; i++) {
        int n = i;
        assertThatThrownBy(() -> dict.getEntryAsync(DictLookup.of("x" + n + "@example.com", "scanner")).join())
            .isInstanceOf(CompletionException.class).hasCauseInstanceOf(DictNotFoundException.class);
      }
      assertThatThrownBy(() -> dict.getEntryAsync(DictLookup.of("x9@example.com", "scanner")).join())
          .hasCauseInstanceOf(DictUserRefusedException.class);
      assertThatThrownBy(() -> dict.getEntryAsync(DictLookup.of("not a key", "scanner")))
          .as("bad input before any I/O, not in the future").isInstanceOf(IllegalArgumentException.class);
    } finally {
      callbacks.shutdownNow();
    }
  }

  @Test
  void aLookupOfARefusedFormReportsDictsProblem(TestRedis redis) throws Exception {
    start(redis, "v1.2.0", DictClientConfig.builder());
    assertThatThrownBy(() -> dict.getEntry("user7@example.com", " ")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("payerId must not be blank");
    assertThatThrownBy(() -> dict.getEntry(DictLookup.of("user7@example.com", CPF).withEndToEndId("E1")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("endToEndId must be");
    assertThat(mock.dictStats().get("payers")).as("nothing reached DICT").isEqualTo(Map.of());
  }
}
