package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.StdErrCapture;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.support.RetryAfter;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The provider's 429 reaches the shared bucket through the interceptor, on a clock the test moves: the fleet's rate
 * is cut, every slot is held back until the Retry-After (or a RateLimit header's reset), callers waiting on slots of
 * the old rate book again, and the meters say so.
 */
@ExtendWith(RedisExtension.class)
class ProviderSignalsTest {
  private final MockWebServer server = new MockWebServer();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final FakeTime time = FakeTime.manual(1_000);
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  /** A client over a bucket of 1 + 1/s whose rate, once cut, stays cut (no lone recovery): the hold in isolation. */
  private OkHttpClient client(String bucketName, IntFunction<MockResponse> answers, ArrivalRecorder[] recorder) {
    return client(bucketName, answers, recorder, RateAdaptation.defaults().withLoneCutRecovery(Duration.ZERO), null);
  }

  private OkHttpClient client(String bucketName, IntFunction<MockResponse> answers, ArrivalRecorder[] recorder,
      RateAdaptation adaptation, String quotaSignal) {
    recorder[0] = new ArrivalRecorder(answers, time::nanoTime);
    server.setDispatcher(recorder[0]);
    bucket = RedisTesting.create(redis.newRedisson(), TokenBucketConfig.custom(bucketName)
        .keyPrefix(redis.keyPrefix()).clientClock(time.clock()).limit(1, 1).rateAdaptation(adaptation).build(), time);
    return new OkHttpClient.Builder().addInterceptor(ThrottlingInterceptor.of(ThrottleTesting.builder(bucket, time)
        .meterRegistry(registry).quotaSignal(quotaSignal).build())).build();
  }

  private RedisTokenBucket bucket;

  private Thread call(OkHttpClient client, AtomicInteger status) {
    Thread t = new Thread(() -> {
      try (Response r = client.newCall(new Request.Builder().url(server.url("/pix")).build()).execute()) {
        status.set(r.code());
      } catch (IOException e) {
        status.set(-1);
      }
    });
    t.start();
    return t;
  }

  /**
   * Moves the clock by 10 ms and waits until the parked caller has done what that brings: still waits for its slot
   * (its task on the clock's timer), or sent its request (the {@code arrivals}-th).
   */
  private void tick(ArrivalRecorder recorder, int arrivals) throws InterruptedException {
    time.advanceMillis(10);
    Awaits.until("the caller waits again or sent its request", Duration.ofSeconds(10),
        () -> time.scheduledTasks() > 0 || recorder.count() >= arrivals);
  }

  private double counter(String name) {
    return registry.get(name).counter().count();
  }

  @Test
  void a429CutsTheRateHoldsEverySlotForItsRetryAfterAndWaitersOfTheOldRateMoveToTheCutRate() throws Exception {
    ArrivalRecorder[] recorder = new ArrivalRecorder[1];
    OkHttpClient client = client("cut", i -> i == 1
        ? new MockResponse.Builder().code(429).addHeader("Retry-After", "3").build()
        : new MockResponse.Builder().code(200).body("ok").build(), recorder);
    long t0 = time.nanoTime();
    AtomicInteger first = new AtomicInteger();
    call(client, first).join(); // drains the bucket (1 token, 1/s)
    AtomicInteger refused = new AtomicInteger();
    Thread w1 = call(client, refused);
    time.awaitScheduled(1); // booked at 1 s, parked until then
    AtomicInteger later = new AtomicInteger();
    Thread w2 = call(client, later);
    time.awaitScheduled(2); // booked at 2 s
    time.advanceMillis(1_000);
    w1.join(TimeUnit.SECONDS.toMillis(10)); // sent at 1 s, answered 429 with Retry-After: 3
    assertThat(refused.get()).isEqualTo(429);
    assertThat(counter("bacen.throttle.provider.refused")).isEqualTo(1);
    assertThat(counter("bacen.throttle.rate.cuts")).isEqualTo(1);
    time.advanceMillis(1_000); // w2's slot: it belongs to the old rate; w2's slot moves to the cut rate, no round trip
    Awaits.until("w2's slot moved", Duration.ofSeconds(10),
        () -> counter("bacen.throttle.superseded") == 1 && time.scheduledTasks() == 1);
    // Moved, in its place: after the hold (the cut at 1 s plus the 3 s asked), its second of the old rate left
    // stretched by 1 / 0.85: 1 + 3 + 1 / 0.85 s, give or take the few ms the 429 took to come back.
    double latest = 1_000 + 3_000 + 1_000 / 0.85 + 10;
    while (recorder[0].count() < 3) {
      tick(recorder[0], 3);
    }
    w2.join(TimeUnit.SECONDS.toMillis(10));
    List<Long> arrivals = recorder[0].arrivals();
    assertThat((arrivals.get(2) - t0) / 1e6).as("after the 3 s the provider asked for, at the cut rate")
        .isBetween(5_000.0, latest);
    assertThat(later.get()).isEqualTo(200);
    // cut to 0.85 and, the cut alone, beginning to climb back by w2's answer
    assertThat(registry.get("bacen.throttle.rate.factor").gauge().value()).isBetween(0.85, 0.86);
    assertThat(registry.get("bacen.throttle.rate.effective").gauge().value()).as("of 1 token per second")
        .isBetween(0.85, 0.86);
    assertThat(registry.get("bacen.throttle.configurations").gauge().value()).isEqualTo(1);
  }

  @Test
  void withoutRetryAfterARateLimitHeaderThatSaysNothingIsLeftGivesTheHold() {
    assertThat(RetryAfter.fromRateLimit("\"pix\";r=0;t=2")).isEqualTo(Duration.ofSeconds(2));
    assertThat(RetryAfter.fromRateLimit("\"pix\";r=3;t=2")).as("something is left: no hold").isNull();
    assertThat(RetryAfter.fromRateLimit("\"pix\";r=0")).isNull();
    assertThat(RetryAfter.fromRateLimit("garbage;r=x;t=-1")).isNull();
    assertThat(RetryAfter.fromRateLimit(null)).isNull();
    assertThat(RetryAfter.fromRateLimit("\"pix\";r=0;t=999999999")).as("capped at a day").isEqualTo(Duration.ofDays(1));
  }

  @Test
  void a429WithARateLimitResetHoldsTheBucketThatLong() throws Exception {
    ArrivalRecorder[] recorder = new ArrivalRecorder[1];
    OkHttpClient client = client("reset", i -> i == 0
        ? new MockResponse.Builder().code(429).addHeader("RateLimit", "\"pix\";r=0;t=2").build()
        : new MockResponse.Builder().code(200).body("ok").build(), recorder);
    long t0 = time.nanoTime();
    AtomicInteger status = new AtomicInteger();
    call(client, status).join();
    assertThat(status.get()).isEqualTo(429);
    Thread next = call(client, status);
    time.awaitScheduled(1); // booked, parked until its slot
    time.advanceMillis(2_000 + (long) Math.ceil(1 / 0.85 * 1e3));
    recorder[0].awaitArrivals(2);
    next.join(TimeUnit.SECONDS.toMillis(10));
    assertThat((recorder[0].arrivals().get(1) - t0) / 1e6).as("2 s held, then one token at the cut rate")
        .isBetween(2_000.0 + 1_000 / 0.85, 2_000.0 + 1_000 / 0.85 + 1);
  }

  /**
   * The adversarial test's first finding: one 429 saying "wait a day" (three ways to say it) held every replica for
   * 23.99 h. The hold is now at most the rate adaptation's maxProviderHold (15 s by default; 2 s here), logged, and
   * shown: the next call leaves right after it, at the cut rate.
   */
  @Test
  void aRetryAfterOfADayHoldsTheFleetNoLongerThanTheMaxProviderHoldAndSaysSo() throws Exception {
    String[][] dayLong = {{"Retry-After", "86400"}, {"RateLimit", "\"pix\";r=0;t=999999999"},
        {"Retry-After", "Fri, 01 Jan 2100 00:00:00 GMT"}};
    for (String[] header : dayLong) {
      ArrivalRecorder[] recorder = new ArrivalRecorder[1];
      RateAdaptation twoSeconds = RateAdaptation.defaults().withLoneCutRecovery(Duration.ZERO)
          .withMaxProviderHold(Duration.ofSeconds(2));
      OkHttpClient client = client("day-" + header[0] + header[1].length(), i -> i == 0
          ? new MockResponse.Builder().code(429).addHeader(header[0], header[1]).build()
          : new MockResponse.Builder().code(200).body("ok").build(), recorder, twoSeconds, null);
      long t0 = time.nanoTime();
      try (StdErrCapture err = new StdErrCapture()) {
        AtomicInteger status = new AtomicInteger();
        call(client, status).join();
        assertThat(status.get()).isEqualTo(429);
        assertThat(bucket.readings().providerHoldLeft()).as("%s: %s", header[0], header[1])
            .isEqualTo(Duration.ofSeconds(2));
        assertThat(registry.get("bacen.throttle.provider.hold").tag("bucket", bucket.name()).gauge().value())
            .isEqualTo(2.0);
        assertThat(err.text()).as("logged loudly").contains("WARN").contains("held 2 s (maxProviderHold)");
      }
      Thread next = call(client, new AtomicInteger());
      time.awaitScheduled(1); // booked, parked until its slot
      time.advanceMillis(2_000 + (long) Math.ceil(1_000 / 0.85));
      recorder[0].awaitArrivals(2);
      next.join(TimeUnit.SECONDS.toMillis(10));
      assertThat((recorder[0].arrivals().get(1) - t0) / 1e6).as("%s: 2 s held, then a token at the cut rate",
          header[1]).isBetween(2_000.0 + 1_000 / 0.85, 2_000.0 + 1_000 / 0.85 + 1);
    }
  }

  /** A 429 without the provider's quota header (a gateway's, a WAF's) neither cuts nor holds, and is counted. */
  @Test
  void a429WithoutTheProvidersQuotaSignalIsNotCountedAgainstTheFleet() throws Exception {
    ArrivalRecorder[] recorder = new ArrivalRecorder[1];
    OkHttpClient client = client("gateway", i -> i == 0
        ? new MockResponse.Builder().code(429).addHeader("Retry-After", "3").build()
        : new MockResponse.Builder().code(429).addHeader("Retry-After", "3")
            .addHeader("RateLimit", "\"pix\";r=0;t=3").build(), recorder, RateAdaptation.defaults(), "RateLimit");
    AtomicInteger status = new AtomicInteger();
    call(client, status).join();
    assertThat(status.get()).isEqualTo(429);
    assertThat(counter("bacen.throttle.provider.refused")).isEqualTo(1);
    assertThat(registry.get("bacen.throttle.provider.ignored").tag("reason", "no-signal").counter().count())
        .isEqualTo(1);
    assertThat(counter("bacen.throttle.rate.cuts")).as("a gateway's 429").isZero();
    assertThat(bucket.readings().rateFactor()).isEqualTo(1.0);
    assertThat(bucket.readings().providerHoldLeft()).isZero();
    time.advanceMillis(1_000);
    call(client, status).join();
    assertThat(counter("bacen.throttle.rate.cuts")).as("the provider's own 429 (it says RateLimit)").isEqualTo(1);
    assertThat(bucket.readings().providerHoldLeft()).isEqualTo(Duration.ofSeconds(3));
  }
}
