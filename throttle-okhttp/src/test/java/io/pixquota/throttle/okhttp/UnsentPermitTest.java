package io.pixquota.throttle.okhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.pixquota.throttle.Awaits;
import io.pixquota.throttle.Match;
import io.pixquota.throttle.Throttle;
import io.pixquota.throttle.store.LocalPermitPool;
import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import okhttp3.Cache;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call of {@link ThrottledCallFactory} whose slot has come but that is never sent on it (its connection cannot be
 * made, it is cancelled at the gate, a cache answers it: the network interceptor never runs) gives its permit back
 * when it ends, not at the permit's lease, and its wait's observation ends. One permit, a lease of a minute and a max
 * wait of a second: a permit kept would refuse the next call.
 */
class UnsentPermitTest {
  private final MockWebServer server = new MockWebServer();
  private final LocalPermitPool pool = new LocalPermitPool("spi", 1, Duration.ofSeconds(60));
  private final AtomicInteger waitsStarted = new AtomicInteger();
  private final AtomicInteger waitsStopped = new AtomicInteger();

  @AfterEach
  void tearDown() {
    server.close();
  }

  private OkHttpClient client(OkHttpClient.Builder builder) {
    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public void onStart(Observation.Context context) {
        waitsStarted.incrementAndGet();
      }

      @Override
      public void onStop(Observation.Context context) {
        waitsStopped.incrementAndGet();
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    Throttle throttle = Throttle.builder().quota("spi", Match.any(), pool).providerTimeout(Duration.ofSeconds(30))
        .maxWait(Duration.ofSeconds(1)).observationRegistry(observations).build();
    return builder.addNetworkInterceptor(ThrottlingInterceptor.of(throttle)).build();
  }

  private static Request get(String url) {
    return new Request.Builder().url(url).build();
  }

  private static String nobodyListens() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return "http://127.0.0.1:" + s.getLocalPort() + "/refused";
    }
  }

  /** The next call gets the one permit at once and is served. */
  private void nextCallIsServed(Call.Factory calls) throws IOException {
    server.enqueue(new MockResponse.Builder().code(200).body("ok").build());
    try (Response r = calls.newCall(get(server.url("/next").toString())).execute()) {
      assertThat(r.code()).isEqualTo(200);
    }
  }

  @Test
  void aBlockingCallWhoseConnectionCannotBeMadeGivesItsPermitBack() throws Exception {
    server.start();
    Call.Factory calls = ThrottledCallFactory.of(client(new OkHttpClient.Builder()));
    String refused = nobodyListens();
    assertThatThrownBy(() -> calls.newCall(get(refused)).execute()).isInstanceOf(ConnectException.class);
    assertThat(waitsStopped).as("its wait's observation ended").hasValue(waitsStarted.get()).hasValue(1);
    nextCallIsServed(calls);
  }

  @Test
  void anAsyncCallWhoseConnectionCannotBeMadeGivesItsPermitBack() throws Exception {
    server.start();
    Call.Factory calls = ThrottledCallFactory.of(client(new OkHttpClient.Builder()));
    CompletableFuture<IOException> failed = new CompletableFuture<>();
    calls.newCall(get(nobodyListens())).enqueue(new Callback() {
      @Override
      public void onFailure(Call call, IOException e) {
        failed.complete(e);
      }

      @Override
      public void onResponse(Call call, Response response) {
        response.close();
        failed.completeExceptionally(new AssertionError("answered"));
      }
    });
    assertThat(failed.get(10, TimeUnit.SECONDS)).isInstanceOf(ConnectException.class);
    nextCallIsServed(calls);
  }

  @Test
  void aBlockingCallCancelledAtTheGateGivesItsPermitBack() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).body("first").build());
    server.start();
    OkHttpClient client = client(new OkHttpClient.Builder());
    client.dispatcher().setMaxRequestsPerHost(1);
    ThrottledCallFactory calls = ThrottledCallFactory.of(client);
    Response first = calls.newCall(get(server.url("/first").toString())).execute(); // its place kept until closed
    Call second = calls.newCall(get(server.url("/second").toString()));
    CompletableFuture<IOException> failed = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try (Response r = second.execute()) {
        failed.completeExceptionally(new AssertionError("sent: " + r.code()));
      } catch (IOException e) {
        failed.complete(e);
      }
    });
    waiter.start();
    Awaits.until("the second call, its permit taken, parked at the gate", Duration.ofSeconds(10),
        () -> LockSupport.getBlocker(waiter) instanceof WireGate);
    second.cancel();
    assertThat(failed.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
    first.close();
    nextCallIsServed(calls);
    assertThat(server.getRequestCount()).as("the cancelled call never sent").isEqualTo(2);
  }

  @Test
  void aCallTheCacheAnswersGivesItsPermitBack() throws Exception {
    server.enqueue(new MockResponse.Builder().code(200).setHeader("Cache-Control", "max-age=600").body("kept")
        .build());
    server.start();
    File dir = Files.createTempDirectory("okhttp-cache").toFile();
    try (Cache cache = new Cache(dir, 1 << 20)) {
      Call.Factory calls = ThrottledCallFactory.of(client(new OkHttpClient.Builder().cache(cache)));
      String url = server.url("/cached").toString();
      try (Response r = calls.newCall(get(url)).execute()) {
        assertThat(r.body().string()).isEqualTo("kept");
      }
      try (Response r = calls.newCall(get(url)).execute()) {
        assertThat(r.body().string()).isEqualTo("kept");
        assertThat(r.networkResponse()).as("answered by the cache").isNull();
      }
      nextCallIsServed(calls);
      assertThat(waitsStopped).hasValue(waitsStarted.get()).hasValue(3);
    } finally {
      for (File f : dir.listFiles()) {
        Files.delete(f.toPath());
      }
      Files.delete(dir.toPath());
    }
  }
}
