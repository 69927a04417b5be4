package io.pixquota.bacen.pix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pixquota.mock.MockBacen;
import io.pixquota.mock.MockConfig;
import io.pixquota.testing.RedisExtension;
import io.pixquota.testing.TestRedis;
import io.pixquota.throttle.StdErrCapture;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.SocketFactory;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A rate and a cap on one route, end to end: the PixClient's bucket (burst 8, 9/s, under the mock's 10 + 10/s) and a
 * pool of 3 in flight beside it (the mock refuses a fourth at once, every answer taking 400 ms). Twenty calls at once:
 * both limits hold (no 429 of either kind, never more than 3 in flight at the provider), and each call is admitted by
 * one script that decides its permit and its slot together.
 */
@ExtendWith(RedisExtension.class)
class PixClientInFlightTest {
  @Test
  void aRateAndACapOnOneRouteBothHold(TestRedis redis) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().latency(400, 0).maxInFlight(3).build())) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      PixClientConfig config = PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
          .bucketName(redis.keyPrefix().replace(":", "-") + "pix").maxWait(Duration.ofSeconds(8))
          .callTimeout(Duration.ofSeconds(10)).maxInFlight(3).retry(1, Duration.ofMillis(1), Duration.ofMillis(1),
              Duration.ofSeconds(1)).build();
      ExecutorService threads = Executors.newFixedThreadPool(20);
      try (PixClient pix = PixClient.builder(config).redisson(redis.newRedisson()).meterRegistry(registry).build()) {
        pix.warmUp();
        List<Future<Pix>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          String e2e = String.format("E12345678202611301200ABCDEF%05d", i);
          calls.add(threads.submit(() -> pix.getPix(e2e)));
        }
        for (Future<Pix> f : calls) {
          assertThat(f.get(30, TimeUnit.SECONDS)).isNotNull();
        }
      } finally {
        threads.shutdownNow();
      }
      assertThat(mock.inFlightStats("demo")).as("the cap held: never a fourth in flight")
          .containsEntry("mostSeen", 3).containsEntry("refused", 0);
      assertThat(((Number) mock.stats("demo", false).get("maxInWindow")).longValue())
          .as("the rate held: at most the provider's 10 in any 1 s").isLessThanOrEqualTo(10);
      assertThat(registry.get("bacen.throttle.pool.wait").tags("pool", config.bucket().name(), "priority",
          "interactive").timer().count()).isEqualTo(20);
      assertThat(registry.get("bacen.throttle.pool.in.use").tags("pool", config.bucket().name()).gauge().value())
          .isBetween(0.0, 3.0);
    }
  }

  /**
   * A provider unreachable for a while (every connection refused, as when nothing listens on its port): each call
   * takes its permit with its slot and fails to connect, which OkHttp does before the throttle's network interceptor
   * sees the call. Those calls give their permits back as they fail; before, they kept them until the lease (max wait
   * + call timeout + 5 s, 11 s here), so the first calls once the provider was back were refused at their max wait of
   * 1 s, blocking or async.
   */
  @Test
  void callsThatCannotReachTheProviderKeepNoPermitForWhenItIsBack(TestRedis redis) throws Exception {
    AtomicBoolean down = new AtomicBoolean();
    OkHttpClient yours = new OkHttpClient.Builder().socketFactory(new SocketFactory() {
      @Override
      public Socket createSocket() {
        return new Socket() {
          @Override
          public void connect(SocketAddress endpoint, int timeout) throws IOException {
            if (down.get()) {
              throw new ConnectException("Connection refused (the provider is down)");
            }
            super.connect(endpoint, timeout);
          }
        };
      }

      @Override
      public Socket createSocket(String host, int port) {
        throw new UnsupportedOperationException("OkHttp asks for unconnected sockets");
      }

      @Override
      public Socket createSocket(String host, int port, InetAddress local, int localPort) {
        throw new UnsupportedOperationException("OkHttp asks for unconnected sockets");
      }

      @Override
      public Socket createSocket(InetAddress host, int port) {
        throw new UnsupportedOperationException("OkHttp asks for unconnected sockets");
      }

      @Override
      public Socket createSocket(InetAddress address, int port, InetAddress local, int localPort) {
        throw new UnsupportedOperationException("OkHttp asks for unconnected sockets");
      }
    }).build();
    yours.dispatcher().setMaxRequestsPerHost(8);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (MockBacen mock = MockBacen.start(MockConfig.builder().build())) {
      PixClientConfig config = PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
          .bucketName(redis.keyPrefix().replace(":", "-") + "unreachable").maxWait(Duration.ofSeconds(1))
          .callTimeout(Duration.ofSeconds(5)).maxInFlight(2).retry(1, Duration.ofMillis(1), Duration.ofMillis(1),
              Duration.ofSeconds(1)).build();
      try (PixClient pix = PixClient.builder(config).redisson(redis.newRedisson()).okHttpClient(yours).build()) {
        pix.warmUp();
        assertThat(pix.getPix("E12345678202612041200UNREACH0000")).isNotNull();
        yours.connectionPool().evictAll();
        down.set(true);
        for (int i = 1; i <= 4; i++) { // twice the cap, blocking and async in turn
          String id = String.format("E12345678202612041200UNREACH%04d", i);
          boolean blocking = i % 2 == 0;
          assertThatThrownBy(() -> {
            if (blocking) {
              pix.getPix(id);
            } else {
              pix.getPixAsync(id).join();
            }
          }).hasStackTraceContaining("the provider is down");
        }
        down.set(false);
        Future<Pix> blocking = thread.submit(() -> pix.getPix("E12345678202612041200UNREACH0005"));
        Future<Pix> async = pix.getPixAsync("E12345678202612041200UNREACH0006");
        assertThat(blocking.get(30, TimeUnit.SECONDS)).as("served, not refused for want of a permit").isNotNull();
        assertThat(async.get(30, TimeUnit.SECONDS)).as("served, not refused for want of a permit").isNotNull();
      }
      assertThat(mock.inFlightStats("demo")).containsEntry("refused", 0);
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * Async calls through an OkHttp client of the caller's own: its dispatcher runs 5 calls to a host at once unless
   * told otherwise, so with a cap of 6 in flight the sixth permit stays unused while its call waits in the dispatcher
   * (the judge sees 5 at most); PixClient says so once, naming the setting and the value. Sized to the cap: 6 at the
   * judge, nothing said.
   */
  @Test
  void asyncCallsThroughYourOwnClientFillTheCapOnlyWhenItsDispatcherRunsAsManyAndAreToldSo(TestRedis redis)
      throws Exception {
    for (int perHost : new int[] {5, 6}) { // OkHttp's default, then the cap
      fillTheCap(redis, perHost, false);
    }
  }

  /**
   * The same with blocking calls, one thread each: they take a connection at most as many at once as the dispatcher
   * runs async calls to the host (ThrottledCallFactory's gate), the rest waiting their turn with no connection; before
   * the gate they took one each, whatever the dispatcher said.
   */
  @Test
  void blockingCallsThroughYourOwnClientAreBoundByItsDispatcherAsAsyncOnesAndAreToldSo(TestRedis redis)
      throws Exception {
    for (int perHost : new int[] {5, 6}) {
      fillTheCap(redis, perHost, true);
    }
  }

  private static void fillTheCap(TestRedis redis, int perHost, boolean blocking) throws Exception {
    try (MockBacen mock = MockBacen.start(MockConfig.builder().latency(600, 0).maxInFlight(6).build());
        StdErrCapture logs = new StdErrCapture()) {
      OkHttpClient yours = new OkHttpClient();
      yours.dispatcher().setMaxRequestsPerHost(perHost);
      PixClientConfig config = PixClientConfig.builder().baseUrl(mock.pixUrl()).credentials("demo", "demo-secret")
          .bucketName(redis.keyPrefix().replace(":", "-") + "own" + perHost + blocking).maxWait(Duration.ofSeconds(8))
          .callTimeout(Duration.ofSeconds(10)).maxInFlight(6).build();
      ExecutorService threads = Executors.newFixedThreadPool(8);
      try (PixClient pix = PixClient.builder(config).redisson(redis.newRedisson()).okHttpClient(yours).build()) {
        pix.warmUp();
        List<Future<Pix>> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) { // the bucket's burst: all 8 could leave at once, 6 may be in flight
          String id = String.format("E12345678202611301200OWN%s%d%05d", blocking ? "BX" : "CX", perHost, i);
          calls.add(blocking ? threads.submit(() -> pix.getPix(id)) : pix.getPixAsync(id));
        }
        for (Future<Pix> f : calls) {
          assertThat(f.get(30, TimeUnit.SECONDS)).isNotNull();
        }
      } finally {
        threads.shutdownNow();
      }
      assertThat(((Number) mock.inFlightStats("demo").get("mostSeen")).intValue()).as("the judge's count")
          .isEqualTo(perHost);
      String warning = "runs at most 5 calls to a host at once";
      assertThat(logs.count(warning)).as("said once, for 8 calls:%n%s", logs.text()).isEqualTo(perHost == 5 ? 1 : 0);
      if (perHost == 5) {
        assertThat(logs.text()).contains("client.dispatcher().setMaxRequestsPerHost(6)");
      }
    }
  }
}
