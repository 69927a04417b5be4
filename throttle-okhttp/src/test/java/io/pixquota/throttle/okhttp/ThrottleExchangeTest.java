package io.pixquota.throttle.okhttp;

import io.pixquota.throttle.redis.RedissonStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.BucketStatus;
import io.pixquota.throttle.Exchange;
import io.pixquota.throttle.FakeTime;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.store.RateAdaptation;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.ThrottleBuilder;
import io.pixquota.throttle.ThrottleRefusedException;
import io.pixquota.throttle.ThrottleTesting;
import io.pixquota.throttle.store.TokenBucket;
import io.pixquota.throttle.redis.BucketState;
import io.pixquota.throttle.redis.RedisTesting;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;

/**
 * {@link Throttle#exchange}: the throttle for an HTTP client other than OkHttp (here the JDK's), against
 * a real Redis bucket and a real HTTP server, on a clock the test moves.
 */
@ExtendWith(RedisExtension.class)
class ThrottleExchangeTest {
  private final MockWebServer server = new MockWebServer();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final HttpClient jdk = HttpClient.newHttpClient();
  private final FakeTime time = FakeTime.autoAdvancing(1_000);
  private RedissonClient redisson;
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    this.redisson = redis.newRedisson();
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private RedisTokenBucket bucket(String name, double capacity, double rate) {
    return RedisTesting.onFakeTime(redisson, redis.keyPrefix(), name, capacity, rate, time);
  }

  private ThrottleBuilder throttle(TokenBucket bucket) {
    return ThrottleTesting.builder(bucket, time).meterRegistry(registry);
  }

  /** One GET with the JDK's client through {@code throttle}. */
  private HttpResponse<String> get(Throttle throttle, String path, Priority priority)
      throws IOException {
    URI uri = server.url(path).uri();
    return throttle.exchange("GET", uri.getRawPath(), priority, new Exchange<>() {
      @Override
      public HttpResponse<String> send() throws IOException {
        try {
          return jdk.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new java.io.InterruptedIOException("interrupted");
        }
      }

      @Override
      public int status(HttpResponse<String> response) {
        return response.statusCode();
      }

      @Override
      public String header(HttpResponse<String> response, String name) {
        return response.headers().firstValue(name).orElse(null);
      }
    });
  }

  @Test
  void eachExchangeIsSentAtItsSlotAndNotBefore() throws Exception {
    ArrivalRecorder recorder = new ArrivalRecorder(i -> new MockResponse.Builder().code(200).build(), time::nanoTime);
    server.setDispatcher(recorder);
    Throttle throttle = throttle(bucket("jdk", 2, 10)).build();
    long t0 = time.nanoTime();
    for (int i = 0; i < 4; i++) {
      assertThat(get(throttle, "/api/v2/pix/x", null).statusCode()).isEqualTo(200);
    }
    List<Double> ms = new ArrayList<>();
    recorder.arrivals().forEach(a -> ms.add((a - t0) / 1e6));
    assertThat(ms).containsExactly(0.0, 0.0, 100.0, 200.0);
    assertThat(registry.get("bacen.throttle.wait").tag("priority", "interactive").timer().count()).isEqualTo(4);
    assertThat(registry.get("bacen.throttle.wait").timer().totalTime(TimeUnit.MILLISECONDS)).as("0 + 0 + 100 + 100")
        .isEqualTo(200);
  }

  @Test
  void aBatchExchangeWithNoSlotFreeIsDeferredNotBookedAhead() throws Exception {
    server.setDispatcher(new ArrivalRecorder(i -> new MockResponse.Builder().code(200).build(), time::nanoTime));
    RedisTokenBucket bucket = bucket("jdk-batch", 1, 10);
    Throttle throttle = throttle(bucket).build();
    get(throttle, "/a", Priority.BATCH);
    get(throttle, "/a", Priority.BATCH);
    assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count()).isEqualTo(1);
    assertThat(bucket.acquire(1, Duration.ofSeconds(1)).waitTime()).as("nothing booked ahead")
        .isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void aProvider429TellsTheBucketAndResponseCostsAreCharged() throws Exception {
    server.setDispatcher(new ArrivalRecorder(i -> i == 0
        ? new MockResponse.Builder().code(429).addHeader("Retry-After", "2").build()
        : new MockResponse.Builder().code(404).build(), time::nanoTime));
    RedisTokenBucket bucket = RedisTesting.create(redisson, TokenBucketConfig.custom("jdk-429")
        .keyPrefix(redis.keyPrefix()).clientClock(time.clock()).limit(30, 10)
        .rateAdaptation(RateAdaptation.defaults()).build(), time);
    Throttle throttle = throttle(bucket).responseCost(404, 20).build();
    assertThat(get(throttle, "/a", null).statusCode()).isEqualTo(429);
    assertThat(registry.get("bacen.throttle.provider.refused").counter().count()).isEqualTo(1);
    assertThat(bucket.readings().rateFactor()).as("the fleet's rate was cut").isLessThan(1);
    long before = time.nanoTime();
    assertThat(get(throttle, "/b", null).statusCode()).isEqualTo(404);
    assertThat(time.nanoTime() - before).as("held back until the Retry-After")
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(1_990));
    // After the cut: 30 -> -17 (empty until the Retry-After's end, at 8.5/s), the 404 booked at 1 token, then charged
    // 19 more: -19 at its slot.
    assertThat(bucket.acquire(1, Duration.ZERO).remaining()).as("the 404 cost 20 in all").isCloseTo(-19, within(0.1));
  }

  @Test
  void aSlotBeyondTheMaxWaitIsRefusedAndNothingIsSent() throws Exception {
    ArrivalRecorder recorder = new ArrivalRecorder(i -> new MockResponse.Builder().code(200).build(), time::nanoTime);
    server.setDispatcher(recorder);
    Throttle throttle = throttle(bucket("jdk-refused", 1, 1)).maxWait(Duration.ofMillis(500)).build();
    get(throttle, "/a", null);
    assertThatThrownBy(() -> get(throttle, "/a", null)).isInstanceOf(ThrottleRefusedException.class);
    assertThat(recorder.arrivals()).hasSize(1);
  }

  @Test
  void statusNamesEveryBucketOnceInTheOrderGiven() throws Exception {
    RedisTokenBucket reads = bucket("status-reads", 5, 5);
    RedisTokenBucket writes = bucket("status-writes", 5, 5);
    Throttle throttle = throttle(reads).rule("POST", "/w", writes, 1).rule("PUT", "/w", writes, 1)
        .build();
    assertThat(throttle.buckets()).containsExactly(reads, writes);
    assertThat(throttle.status()).extracting(BucketStatus::bucket)
        .containsExactly("status-reads", "status-writes");
    assertThat(throttle.status()).extracting(BucketStatus::marginExceeded).containsOnly(0L);
  }

  @Test
  void stateShowsTokensBookedAheadAndTheLiveConfigurations() throws Exception {
    // On Redis's own clock, as the state is read; a slow refill, so that the reading barely moves while the test runs.
    TokenBucketConfig config = TokenBucketConfig.custom("state").keyPrefix(redis.keyPrefix()).limit(5, 0.001)
        .build();
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redisson), config);
    BucketState empty = bucket.state();
    assertThat(empty.stored()).isFalse();
    assertThat(empty.tokens()).isEqualTo(5);
    assertThat(empty.nextSlotIn()).isEqualTo(Duration.ZERO);
    for (int i = 0; i < 8; i++) {
      assertThat(bucket.acquire(1, Duration.ofDays(1)).granted()).isTrue();
    }
    RedisTokenBucket other = RedisTokenBucket.create(RedissonStore.of(redisson), TokenBucketConfig.custom("state")
        .keyPrefix(redis.keyPrefix()).limit(4, 0.001).build());
    assertThat(other.acquire(1, Duration.ofDays(1)).granted()).isTrue();
    BucketState s = bucket.state();
    assertThat(s.stored()).isTrue();
    // 5 - 8 = -3 on the 5-token limit; the 4-token limit starts as busy (-4) and the other's call takes 1 from both.
    assertThat(s.tokens()).isCloseTo(-5, within(0.01));
    assertThat(s.bookedAhead()).isCloseTo(5, within(0.01));
    assertThat(s.nextSlotIn()).isCloseTo(Duration.ofSeconds(6_000), Duration.ofSeconds(10));
    assertThat(s.rateFactor()).isEqualTo(1);
    assertThat(s.effectiveRate()).isEqualTo(0.001);
    assertThat(s.configurations()).containsExactly("4.0:0.001", "5.0:0.001");
  }
}
