package io.pixquota.throttle.okhttp;

import io.pixquota.throttle.redis.RedissonStore;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.Priority;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.redis.RedisTokenBucket;
import io.pixquota.throttle.redis.TokenBucketConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Call;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Blocking BATCH calls of one process take turns to ask (real threads, real time, a real Redis and HTTP server): one
 * asks at a time, so a call is told to wait at most once instead of every waiting call asking at every free slot; a
 * call that cannot get its turn within its max wait is refused, not sent.
 */
@ExtendWith(RedisExtension.class)
class BatchAskersTest {
  private final MockWebServer server = new MockWebServer();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private TestRedis redis;

  @BeforeEach
  void setUp(TestRedis redis) throws IOException {
    this.redis = redis;
    for (int i = 0; i < 40; i++) {
      server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    }
    server.start();
  }

  @AfterEach
  void tearDown() {
    threads.shutdownNow();
    server.close();
  }

  private OkHttpClient client(double capacity, double rate, Duration maxWait) {
    RedisTokenBucket bucket = RedisTokenBucket.create(RedissonStore.of(redis.newRedisson()),
        TokenBucketConfig.custom("askers")
        .keyPrefix(redis.keyPrefix()).limit(capacity, rate).build());
    return new OkHttpClient.Builder().addNetworkInterceptor(ThrottlingInterceptor.of(Throttle.builder(bucket)
        .defaultPriority(Priority.BATCH).maxWait(maxWait).meterRegistry(registry).build())).build();
  }

  private int execute(OkHttpClient client) throws IOException {
    try (Response r = client.newCall(new Request.Builder().url(server.url("/sweep")).build()).execute()) {
      return r.code();
    }
  }

  @Test
  void batchCallsOfOneProcessAskOneAtATimeSoEachIsToldToWaitAtMostOnce() throws Exception {
    OkHttpClient client = client(1, 20, Duration.ofSeconds(10));
    List<Future<Integer>> calls = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      calls.add(threads.submit(() -> {
        for (int i = 0; i < 5; i++) {
          assertThat(execute(client)).isEqualTo(200);
        }
        return 200;
      }));
    }
    for (Future<Integer> f : calls) {
      assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(200);
    }
    assertThat(server.getRequestCount()).isEqualTo(20);
    assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count())
        .as("told to wait at most once per call (20 calls, 1 token at the start); 4 threads asking at every slot "
            + "would be told about 3 times per slot").isLessThanOrEqualTo(19);
  }

  @Test
  void aBatchCallThatCannotGetItsTurnWithinItsMaxWaitIsRefusedAndNotSent() throws Exception {
    OkHttpClient client = client(1, 2, Duration.ofSeconds(10));
    assertThat(execute(client)).isEqualTo(200); // the one token
    Future<Integer> first = threads.submit(() -> execute(client)); // told 500 ms: holds the turn until then
    Awaits.until("the first call asked and was told when to ask again", Duration.ofSeconds(10),
        () -> registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count() >= 1);
    Call second = client.newCall(new Request.Builder().url(server.url("/sweep")).build());
    second.timeout().timeout(300, TimeUnit.MILLISECONDS); // its max wait: what is left of its call timeout
    assertThatThrownBy(second::execute).isInstanceOf(IOException.class);
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(200);
    assertThat(server.getRequestCount()).as("the second was not sent").isEqualTo(2);
    assertThat(registry.get("bacen.throttle.permits").tag("priority", "batch").tag("result", "refused").counter()
        .count()).as("refused for its wait behind the first, not by the bucket").isEqualTo(1);
    assertThat(registry.get("bacen.throttle.deferred").tag("priority", "batch").counter().count())
        .as("only the first asked").isEqualTo(1);
  }
}
